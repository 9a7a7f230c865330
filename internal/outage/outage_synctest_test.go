package outage_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/wire"
)

// The tests of this file run in a testing/synctest bubble: the package does
// no I/O, so its timers run on the bubble's fake clock and each delay is
// checked to the nanosecond, where a real-time test could only bound it.

// TestSleepExactly: Sleep returns true exactly when its delay is over, and
// false exactly when its context ends first, not a moment later.
func TestSleepExactly(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		require.True(t, outage.Sleep(t.Context(), 3*time.Second))
		require.Equal(t, 3*time.Second, time.Since(start), "the delay, to the nanosecond")

		ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
		defer cancel()
		start = time.Now()
		require.False(t, outage.Sleep(ctx, time.Hour))
		require.Equal(t, 1500*time.Millisecond, time.Since(start), "the context's end, not the hour")
	})
}

// TestWatchOutageLength: the "engine back" line reports the outage's
// length measured from the first failure, however many failures followed.
func TestWatchOutageLength(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var buf syncBuf
		w := outage.New(slog.New(slog.NewTextHandler(&buf, nil)), "echomq: test")
		down := &wire.TransportError{Err: errors.New("connection refused")}
		require.True(t, w.Failed("read", down))
		time.Sleep(time.Second) // sleep: the bubble's clock: the outage goes on
		require.False(t, w.Failed("read", down), "a later failure does not restart the outage's clock")
		time.Sleep(1750 * time.Millisecond) // sleep: the bubble's clock: the outage goes on
		w.OK()
		require.Contains(t, buf.String(), `msg="echomq: test: engine back" outage=2.75s`)

		// The next outage is measured from its own start.
		require.True(t, w.Failed("ack", down))
		time.Sleep(40 * time.Millisecond) // sleep: the bubble's clock: a short outage
		w.OK()
		require.Contains(t, buf.String(), `msg="echomq: test: engine back" outage=40ms`)
	})
}

// TestRunSweepsSchedule: RunSweeps sweeps at once, then every Tick while the
// engine is there; while it is away the sweeps back off (100ms doubling to
// 2s, never below Tick), and once it is back they return to Tick. Each
// sweep's start is pinned on the bubble's clock.
func TestRunSweepsSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		down := &wire.TransportError{Err: errors.New("connection refused")}
		// What each sweep finds: nil is an engine that answers.
		found := []error{nil, down, down, down, down, down, down, down, nil, nil}
		want := []time.Duration{
			0,                       // at once
			150 * time.Millisecond,  // Tick
			300 * time.Millisecond,  // Tick (the first backoff, 100ms, is below it)
			500 * time.Millisecond,  // +200ms
			900 * time.Millisecond,  // +400ms
			1700 * time.Millisecond, // +800ms
			3300 * time.Millisecond, // +1.6s
			5300 * time.Millisecond, // +2s, the cap
			7300 * time.Millisecond, // +2s, and the engine is back
			7450 * time.Millisecond, // Tick again
		}
		var buf syncBuf
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		start := time.Now()
		var at []time.Duration
		err := outage.RunSweeps(ctx, slog.New(slog.NewTextHandler(&buf, nil)), "echomq: sweeper", 150*time.Millisecond,
			func(_ context.Context, s *outage.Sweeps) (time.Duration, error) {
				at = append(at, time.Since(start))
				if len(at) == len(found) {
					cancel()
				}
				next, _, stop := s.Done([]error{found[len(at)-1]})
				return next, stop
			})
		require.NoError(t, err)
		require.Equal(t, want, at, "and no sweep after the context ended")
		out := buf.String()
		require.Contains(t, out, `msg="echomq: sweeper: engine back" outage=7.15s`, "from the first failed sweep (150ms) to the first good one (7.3s)")
		require.Contains(t, out, `msg="echomq: sweeper: stopped" reason="context ended"`)
	})
}
