package lanes_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

var ctx = context.Background()

// quiet is a logger for workers whose complaints a test provokes.
var quiet = slog.New(slog.DiscardHandler)

func connect(t testing.TB, url string) *echomq.Client {
	t.Helper()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: url, Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// setup returns a queue of its own on the shared server.
func setup(t testing.TB, cfg *lanes.Config) *lanes.Queue {
	t.Helper()
	q, err := lanes.New(connect(t, echomqtest.Shared(t).URL()), echomqtest.Queue(t), cfg)
	require.NoError(t, err)
	return q
}

func enqueue(t testing.TB, q *lanes.Queue, lane, payload string) echomq.ID {
	t.Helper()
	id, err := q.Enqueue(ctx, lane, []byte(payload), nil)
	require.NoError(t, err)
	return id
}

// claimOne claims exactly one job.
func claimOne(t testing.TB, q *lanes.Queue, lease time.Duration) *lanes.Job {
	t.Helper()
	jobs, err := q.Claim(ctx, 1, lease)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	return jobs[0]
}

func requireEmptyClaim(t testing.TB, q *lanes.Queue) {
	t.Helper()
	jobs, err := q.Claim(ctx, 1, time.Minute)
	require.NoError(t, err)
	require.Empty(t, jobs)
}

// sweepUntil runs the janitor until cond holds for its result, the way a
// worker's janitor would; it is how tests wait for leases and backoffs to
// end on the engine's clock.
func sweepUntil(t testing.TB, q *lanes.Queue, cond func(lanes.SweepResult) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := q.Sweep(ctx)
		require.NoError(t, err)
		if cond(res) {
			return
		}
		require.True(t, time.Now().Before(deadline), "sweep condition not met in time")
		wait := 5 * time.Millisecond
		if res.Next > 0 {
			wait = min(res.Next+time.Millisecond, 100*time.Millisecond)
		}
		time.Sleep(wait) // sleep: until the engine's next due lease or backoff (bounded above)
	}
}
