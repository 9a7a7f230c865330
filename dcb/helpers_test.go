package dcb_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/echomqtest"
)

var ctx = context.Background()

func connect(t testing.TB, url string) *echomq.Client {
	t.Helper()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: url, Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// setup returns a store of a queue of its own on the shared server.
func setup(t testing.TB) (*dcb.Store, *echomq.Client) {
	t.Helper()
	c := connect(t, echomqtest.Shared(t).URL())
	s, err := dcb.New(c, echomqtest.Queue(t))
	require.NoError(t, err)
	return s, c
}

func mustAppend(t testing.TB, s *dcb.Store, cond *dcb.Condition, evs ...dcb.Append) []dcb.Appended {
	t.Helper()
	got, err := s.Append(ctx, evs, cond)
	require.NoError(t, err)
	return got
}

func ev(stream string, tags []string, kv ...string) dcb.Append {
	return dcb.Append{Stream: stream, Fields: echomq.F(kv...), Tags: tags}
}
