package partition_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
)

var ctx = context.Background()

func connect(t testing.TB, url string) *echomq.Client {
	t.Helper()
	c, err := echomq.Connect(ctx, echomq.Config{URL: url, Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// setup creates a partitioned stream of p partitions in a queue of its own
// on the shared server.
func setup(t testing.TB, p int) (*echomq.Client, *partition.Stream) {
	t.Helper()
	c := connect(t, echomqtest.Shared(t).URL())
	s, err := partition.Create(ctx, c, echomqtest.Queue(t), "orders", p)
	require.NoError(t, err)
	return c, s
}

func ids(evs []echomq.Event) []echomq.ID {
	out := make([]echomq.ID, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}
