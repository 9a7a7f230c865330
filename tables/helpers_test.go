package tables_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/embedded"
)

// target opens a client on one engine for one test.
type target func(t *testing.T) *echomq.Client

// serverTarget connects to the shared redis-server the harness started.
func serverTarget(t *testing.T) *echomq.Client {
	t.Helper()
	return connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
}

// embeddedTarget starts a private embedded engine.
func embeddedTarget(t *testing.T) *echomq.Client {
	t.Helper()
	return connect(t, echomq.Config{URL: embedded.URL})
}

var ctx = context.Background()

func TestMain(m *testing.M) { echomqtest.MainWithLeakCheck(m) }

func connect(t *testing.T, cfg echomq.Config) *echomq.Client {
	t.Helper()
	cfg.Notice = io.Discard
	c, err := echomq.Connect(context.Background(), &cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// exampleClient connects to an embedded engine with a clock that ticks a
// second per reading and a fixed node id, so the examples print the same
// ids every run.
func exampleClient() *echomq.Client {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tick := 0
	clock := func() time.Time { tick++; return start.Add(time.Duration(tick) * time.Second) }
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: embedded.URL, Clock: clock, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	return c
}

// ids returns the receipts of evs, in order.
func ids(evs []echomq.Event) []echomq.ID {
	var out []echomq.ID
	for _, e := range evs {
		out = append(out, e.ID)
	}
	return out
}
