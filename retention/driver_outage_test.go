package retention_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/retention"
)

// TestDriverStartsDuringOutage: a driver started while the engine is down
// starts (its archive-control check waits for the engine), sweeps once the
// engine is back, and stops with its context.
func TestDriverStartsDuringOutage(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: srv.URL(), NodeID: new(12), Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	q := echomqtest.Queue(t)
	s := c.Stream(q, "ev")
	for i := range 10 {
		_, err := s.Append(context.Background(), echomq.Fields{"n", string(rune('a' + i))}, nil)
		require.NoError(t, err)
	}
	var trimmed atomicInt
	d, err := retention.New(c, &retention.Config{
		Policies: []retention.Policy{{Queue: q, Stream: "ev", Rule: retention.MaxLen(3).Exact()}},
		Tick:     50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler),
		OnSweep: func(r retention.SweepResult) {
			if r.Failed == 0 {
				trimmed.set(trimmed.get() + r.Trimmed)
			}
		},
	})
	require.NoError(t, err)
	require.NoError(t, srv.Kill())
	require.NoError(t, d.Start(context.Background()), "a driver starts while the engine is away")
	time.Sleep(time.Second) // sleep: the outage lasts; the driver keeps trying meanwhile
	srv.Restart(t)
	require.Eventually(t, func() bool { return trimmed.get() == 7 }, 30*time.Second, 20*time.Millisecond)
	require.NoError(t, d.Stop(context.Background()))
	evs, err := s.Read(context.Background(), echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 3)
}
