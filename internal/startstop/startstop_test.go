package startstop_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/echomq/echomq/internal/startstop"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestStartStop(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testStartStop) // pure Go: a run that never ends deadlocks the bubble and fails
}

func testStartStop(t *testing.T) {
	var s startstop.Service
	select {
	case <-s.Stopped():
	default:
		t.Fatal("an idle service reports stopped")
	}
	require.NoError(t, s.Stop(context.Background()), "stopping an idle service does nothing")
	var ticks atomic.Int64
	require.NoError(t, s.Start(context.Background(), func(ctx context.Context) error {
		return startstop.Tick(ctx, time.Millisecond, func(context.Context) { ticks.Add(1) })
	}))
	require.ErrorIs(t, s.Start(context.Background(), func(context.Context) error { return nil }), startstop.ErrRunning, "one run at a time")
	require.ErrorIs(t, s.Run(context.Background(), func(context.Context) error { return nil }), startstop.ErrRunning, "Run is refused too")
	require.Eventually(t, func() bool { return ticks.Load() >= 3 }, 5*time.Second, time.Millisecond)
	require.NoError(t, s.Stop(context.Background()))
	<-s.Stopped()
	n := ticks.Load()
	time.Sleep(5 * time.Millisecond) // sleep: the bubble's clock: five ticks' time passes
	require.Equal(t, n, ticks.Load(), "no tick after Stop returned")
	require.NoError(t, s.Start(context.Background(), func(context.Context) error { return nil }), "startable again")
	<-s.Stopped()
}

func TestEndsWithItsContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testEndsWithItsContext) // pure Go: a run that never ends deadlocks the bubble and fails
}

func testEndsWithItsContext(t *testing.T) {
	var s startstop.Service
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, s.Start(ctx, func(ctx context.Context) error { <-ctx.Done(); return nil }))
	cancel()
	<-s.Stopped()
	require.Eventually(t, func() bool { return s.Start(context.Background(), func(context.Context) error { return nil }) == nil },
		5*time.Second, time.Millisecond, "a service whose context ended can start again")
	<-s.Stopped()
}

func TestStopWaitsBoundedByCtx(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testStopWaitsBoundedByCtx) // pure Go: a run that never ends deadlocks the bubble and fails
}

func testStopWaitsBoundedByCtx(t *testing.T) {
	var s startstop.Service
	release := make(chan struct{})
	require.NoError(t, s.Start(context.Background(), func(context.Context) error { <-release; return nil }))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, s.Stop(ctx), context.DeadlineExceeded)
	close(release)
	<-s.Stopped()
}

// TestRunAndErrors: Run blocks on the caller's goroutine and returns the
// run's error; Stop of a run started with Start returns the run's error,
// and a second Stop returns it again.
func TestRunAndErrors(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testRunAndErrors) // pure Go: a run that never ends deadlocks the bubble and fails
}

func testRunAndErrors(t *testing.T) {
	var s startstop.Service
	boom := errors.New("boom")
	require.ErrorIs(t, s.Run(context.Background(), func(context.Context) error { return boom }), boom)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, s.Run(ctx, func(ctx context.Context) error { <-ctx.Done(); return nil }))
	require.NoError(t, s.Start(context.Background(), func(ctx context.Context) error { <-ctx.Done(); return boom }))
	require.ErrorIs(t, s.Stop(context.Background()), boom)
	require.ErrorIs(t, s.Stop(context.Background()), boom, "Stop is idempotent")
	// Run from another goroutine, stopped by Stop.
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Run(context.Background(), func(ctx context.Context) error { close(started); <-ctx.Done(); return nil })
	}()
	<-started
	require.NoError(t, s.Stop(context.Background()))
	require.NoError(t, <-done)
}

func TestLoop(t *testing.T) {
	t.Parallel()
	stop := errors.New("permanent")
	var calls atomic.Int64
	err := startstop.Loop(context.Background(), func(context.Context) (time.Duration, error) {
		if calls.Add(1) == 3 {
			return 0, stop
		}
		return time.Millisecond, nil
	})
	require.ErrorIs(t, err, stop, "an error of fn ends the loop with it")
	require.EqualValues(t, 3, calls.Load())

	ctx, cancel := context.WithCancel(context.Background())
	err = startstop.Loop(ctx, func(context.Context) (time.Duration, error) {
		cancel()
		return time.Hour, stop
	})
	require.NoError(t, err, "a loop whose context ended returns nil")
}
