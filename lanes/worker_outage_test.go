package lanes_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// TestWorkerStopsOnClosedClient: a closed client is a permanent error:
// the worker stops by itself and Run returns echomq.ErrClosed, instead of
// retrying forever.
func TestWorkerStopsOnClosedClient(t *testing.T) {
	t.Parallel()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard})
	require.NoError(t, err)
	q, err := lanes.New(c, echomqtest.Queue(t), nil)
	require.NoError(t, err)
	w, err := lanes.NewWorker(q, lanes.HandlerFunc(func(context.Context, *lanes.Job) error { return nil }),
		&lanes.WorkerConfig{IdleWait: 50 * time.Millisecond, Logger: quiet})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- w.Run(context.Background()) }()
	enqueue(t, q, "a", "x") // the dispatcher claims, runs it and waits for more
	eventuallyWorker(t, w, func(s lanes.WorkerStats) bool { return s.Completed == 1 })
	require.NoError(t, c.Close())
	select {
	case err := <-done:
		require.ErrorIs(t, err, echomq.ErrClosed)
	case <-time.After(30 * time.Second):
		t.Fatal("the worker kept running on a closed client")
	}
	require.ErrorIs(t, w.Stop(ctx), echomq.ErrClosed, "Stop returns the error the worker stopped on")
}

// TestWorkerRidesOutRestart: jobs enqueued before an engine restart and
// after it are all run; the worker never stops.
func TestWorkerRidesOutRestart(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	q, err := lanes.New(connect(t, srv.URL()), echomqtest.Queue(t), nil)
	require.NoError(t, err)
	ran := make(chan string, 10)
	w, err := lanes.NewWorker(q, lanes.HandlerFunc(func(_ context.Context, j *lanes.Job) error {
		ran <- string(j.Payload)
		return nil
	}), &lanes.WorkerConfig{Logger: quiet})
	require.NoError(t, err)
	require.NoError(t, w.Start(ctx))
	enqueue(t, q, "a", "before")
	require.Equal(t, "before", echomqtest.Recv(t, ran, 20*time.Second, "the job enqueued before the outage"))
	require.NoError(t, srv.Kill())
	time.Sleep(2 * time.Second) // sleep: the outage lasts
	srv.Restart(t)
	enqueue(t, q, "a", "after")
	select {
	case p := <-ran:
		require.Equal(t, "after", p)
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not resume after the restart")
	}
	select {
	case <-w.Stopped():
		t.Fatal("the worker stopped on an outage")
	default:
	}
	require.NoError(t, w.Stop(ctx))
}
