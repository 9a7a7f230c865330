package startstop_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/echomq/echomq/internal/startstop"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestStartStop(t *testing.T) {
	t.Parallel()
	var s startstop.Service
	select {
	case <-s.Stopped():
	default:
		t.Fatal("an idle service reports stopped")
	}
	require.NoError(t, s.Stop(context.Background()), "stopping an idle service does nothing")
	var ticks atomic.Int64
	require.True(t, s.Start(context.Background(), func(ctx context.Context) {
		startstop.Tick(ctx, time.Millisecond, func(context.Context) { ticks.Add(1) })
	}))
	require.False(t, s.Start(context.Background(), func(context.Context) {}), "one goroutine at a time")
	require.Eventually(t, func() bool { return ticks.Load() >= 3 }, 5*time.Second, time.Millisecond)
	require.NoError(t, s.Stop(context.Background()))
	<-s.Stopped()
	n := ticks.Load()
	time.Sleep(5 * time.Millisecond)
	require.Equal(t, n, ticks.Load(), "no tick after Stop returned")
	require.True(t, s.Start(context.Background(), func(context.Context) {}), "startable again")
	<-s.Stopped()
}

func TestEndsWithItsContext(t *testing.T) {
	t.Parallel()
	var s startstop.Service
	ctx, cancel := context.WithCancel(context.Background())
	require.True(t, s.Start(ctx, func(ctx context.Context) { <-ctx.Done() }))
	cancel()
	<-s.Stopped()
	require.Eventually(t, func() bool { return s.Start(context.Background(), func(context.Context) {}) }, 5*time.Second, time.Millisecond,
		"a service whose context ended can start again")
	<-s.Stopped()
}

func TestStopWaitsBoundedByCtx(t *testing.T) {
	t.Parallel()
	var s startstop.Service
	release := make(chan struct{})
	require.True(t, s.Start(context.Background(), func(context.Context) { <-release }))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, s.Stop(ctx), context.DeadlineExceeded)
	close(release)
	<-s.Stopped()
}
