package lanes_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// fastWorker is a worker configuration with test-sized timings.
func fastWorker(cfg lanes.WorkerConfig) *lanes.WorkerConfig {
	if cfg.Lease == 0 {
		cfg.Lease = 300 * time.Millisecond
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = 100 * time.Millisecond
	}
	if cfg.JanitorInterval == 0 {
		cfg.JanitorInterval = 100 * time.Millisecond
	}
	if cfg.IdleWait == 0 {
		cfg.IdleWait = 200 * time.Millisecond
	}
	if cfg.Backoff == nil {
		cfg.Backoff = lanes.Fixed(10 * time.Millisecond)
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	return &cfg
}

func startWorker(t *testing.T, q *lanes.Queue, h lanes.Handler, cfg *lanes.WorkerConfig) *lanes.Worker {
	t.Helper()
	w, err := lanes.NewWorker(q, h, cfg)
	require.NoError(t, err)
	require.NoError(t, w.Start(ctx))
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		require.NoError(t, w.Stop(sctx))
	})
	return w
}

// eventually polls the queue's counts until cond holds: the engine's state
// is the signal a test waits for.
func eventually(t *testing.T, q *lanes.Queue, cond func(lanes.Stats) bool) lanes.Stats {
	t.Helper()
	return eventuallyWithin(t, q, 20*time.Second, cond)
}

func eventuallyWithin(t *testing.T, q *lanes.Queue, d time.Duration, cond func(lanes.Stats) bool) lanes.Stats {
	t.Helper()
	var st lanes.Stats
	met := false
	defer func() { // a failed wait ends the test's goroutine: show the last stats
		if !met {
			t.Logf("the queue's last stats: %+v", st)
		}
	}()
	echomqtest.WaitFor(t, d, "the queue's stats to meet the condition", func() bool {
		var err error
		st, err = q.Stats(ctx)
		require.NoError(t, err)
		return cond(st)
	})
	met = true
	return st
}

func TestWorkerResults(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	var mu sync.Mutex
	runs := map[string][]int{}
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		mu.Lock()
		runs[string(job.Payload)] = append(runs[string(job.Payload)], job.Attempt)
		mu.Unlock()
		switch string(job.Payload) {
		case "retry-after":
			if job.Attempt == 1 {
				return lanes.RetryAfter(20*time.Millisecond, errors.New("not yet"))
			}
		case "cancel":
			return lanes.Cancel(errors.New("pointless"))
		case "panic":
			if job.Attempt == 1 {
				panic("boom")
			}
		case "fail":
			return errors.New("always")
		}
		return nil
	})
	for _, p := range []string{"ok", "retry-after", "cancel", "panic"} {
		enqueue(t, q, p, p)
	}
	failID, err := q.Enqueue(ctx, "fail", []byte("fail"), &lanes.EnqueueOpts{MaxAttempts: 3})
	require.NoError(t, err)
	w := startWorker(t, q, h, fastWorker(lanes.WorkerConfig{Concurrency: 4}))

	st := eventually(t, q, func(s lanes.Stats) bool { return s.Completed == 3 && s.Dead == 2 })
	require.Equal(t, lanes.Stats{Dead: 2, Enqueued: 5, Completed: 3, Failed: 4, DefaultLaneLimit: 1}, st)
	mu.Lock()
	require.Equal(t, map[string][]int{
		"ok": {1}, "retry-after": {1, 2}, "cancel": {1}, "panic": {1, 2}, "fail": {1, 2, 3},
	}, runs)
	mu.Unlock()
	// The worker counts a dead job after the engine's stats show it (the
	// fail script's reply comes first): wait for its count, bounded.
	require.Eventually(t, func() bool { return w.Stats().Dead == 2 }, time.Minute, 10*time.Millisecond,
		"the worker counts both dead jobs: %+v", w.Stats())
	require.Equal(t, int64(1), w.Stats().Panics)

	info, err := q.Job(ctx, failID)
	require.NoError(t, err)
	require.Equal(t, lanes.StateDead, info.State)
	require.Equal(t, "always", info.LastError)
}

// TestWorkerShutdownReleases: a handler still running when the grace ends
// is cancelled, and its job goes back to the head of its lane without
// spending the attempt.
func TestWorkerShutdownReleases(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	id := enqueue(t, q, "L", "J1")
	enqueue(t, q, "L", "J2")
	started := make(chan struct{})
	var cause atomic.Value
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		close(started)
		<-ctx.Done()
		cause.Store(context.Cause(ctx))
		return ctx.Err()
	})
	w, err := lanes.NewWorker(q, h, fastWorker(lanes.WorkerConfig{}))
	require.NoError(t, err)
	require.NoError(t, w.Start(ctx))
	echomqtest.Recv(t, started, 20*time.Second, "the handler to start")
	expired, cancel := context.WithCancel(ctx)
	cancel() // no grace at all
	require.NoError(t, w.Stop(expired))
	require.NotNil(t, cause.Load())
	echomqtest.Recv(t, w.Stopped(), 20*time.Second, "the worker to stop")

	info, err := q.Job(ctx, id)
	require.NoError(t, err)
	require.Equal(t, lanes.StateWaiting, info.State)
	require.Equal(t, 0, info.Attempts, "a release spends no attempt")
	require.Equal(t, int64(1), w.Stats().Released)
	j := claimOne(t, q, time.Minute)
	require.Equal(t, "J1", string(j.Payload), "back at the head of its lane")
	require.Equal(t, 1, j.Attempt)
}

// TestWorkerShutdownGrace: a handler that finishes within the grace
// completes its job.
func TestWorkerShutdownGrace(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "L", "J1")
	started, finish := make(chan struct{}), make(chan struct{})
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		close(started)
		select {
		case <-finish:
			return nil
		case <-ctx.Done(): // the grace is over: the worker cancels the handler
			return ctx.Err()
		}
	})
	w, err := lanes.NewWorker(q, h, fastWorker(lanes.WorkerConfig{}))
	require.NoError(t, err)
	wctx, stop := context.WithCancel(ctx)
	require.NoError(t, w.Start(wctx))
	require.ErrorIs(t, w.Start(wctx), lanes.ErrRunning)
	echomqtest.Recv(t, started, 20*time.Second, "the handler to start")
	stop() // Start's ctx ends: graceful stop with ShutdownGrace
	close(finish)
	echomqtest.Recv(t, w.Stopped(), 20*time.Second, "the worker to stop within its grace")
	st, err := q.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Completed)
	require.Equal(t, int64(0), st.Active)
}

// TestWorkerLeaseLost: the heartbeat of a job the janitor took back fails,
// the handler's ctx is cancelled with ErrLeaseLost, and its late success is
// not applied: the job runs again and completes once.
func TestWorkerLeaseLost(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	id := enqueue(t, q, "L", "J1")
	var calls atomic.Int32
	firstCause := make(chan error, 1)
	second := make(chan struct{})
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		if calls.Add(1) == 1 {
			<-ctx.Done()
			firstCause <- context.Cause(ctx)
			return nil // a late success
		}
		close(second)
		return nil
	})
	w, err := lanes.NewWorker(q, h, fastWorker(lanes.WorkerConfig{Concurrency: 2}))
	require.NoError(t, err)
	lanes.HoldHeartbeats(w, true)
	require.NoError(t, w.Start(ctx))
	t.Cleanup(func() { require.NoError(t, w.Stop(ctx)) })

	// The lease lapses, the janitor returns the job to its lane and the
	// worker runs it again in its second slot.
	echomqtest.Recv(t, second, 20*time.Second, "the job's second run")
	eventually(t, q, func(s lanes.Stats) bool { return s.Completed == 1 })
	lanes.HoldHeartbeats(w, false)
	require.ErrorIs(t, echomqtest.Recv(t, firstCause, 20*time.Second, "the first run's cancellation"), lanes.ErrLeaseLost)

	info, err := q.Job(ctx, id)
	require.NoError(t, err)
	require.Equal(t, lanes.StateCompleted, info.State)
	require.Equal(t, 2, info.Attempts)
	require.Equal(t, 1, info.Stalls)
	st := eventually(t, q, func(s lanes.Stats) bool { return true })
	require.Equal(t, int64(1), st.Completed)
	require.Equal(t, int64(1), st.Reaped)
	require.Equal(t, int64(0), st.Active+st.Waiting)
	eventuallyWorker(t, w, func(s lanes.WorkerStats) bool { return s.Lost == 1 })
}

func eventuallyWorker(t *testing.T, w *lanes.Worker, cond func(lanes.WorkerStats) bool) {
	t.Helper()
	st := w.Stats()
	met := false
	defer func() { // a failed wait ends the test's goroutine: show the last stats
		if !met {
			t.Logf("the worker's last stats: %+v", st)
		}
	}()
	echomqtest.WaitFor(t, 10*time.Second, "the worker's stats to meet the condition", func() bool {
		st = w.Stats()
		return cond(st)
	})
	met = true
}

// TestWorkerHeartbeatOutlivesLease: a handler running for several leases
// keeps its job through heartbeats and is never run twice.
func TestWorkerHeartbeatOutlivesLease(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	enqueue(t, q, "L", "long")
	var calls atomic.Int32
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		calls.Add(1)
		select {
		case <-time.After(700 * time.Millisecond): // > 2 leases
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	startWorker(t, q, h, fastWorker(lanes.WorkerConfig{Concurrency: 2}))
	st := eventually(t, q, func(s lanes.Stats) bool { return s.Completed == 1 })
	require.Zero(t, st.Reaped)
	require.Equal(t, int32(1), calls.Load())
}

func TestWorkerConfigBadInput(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	h := lanes.HandlerFunc(func(context.Context, *lanes.Job) error { return nil })
	for _, tc := range []struct {
		name string
		h    lanes.Handler
		cfg  lanes.WorkerConfig
	}{
		{"nil handler", nil, lanes.WorkerConfig{}},
		{"concurrency", h, lanes.WorkerConfig{Concurrency: -1}},
		{"lease", h, lanes.WorkerConfig{Lease: time.Millisecond}},
		{"heartbeat at lease", h, lanes.WorkerConfig{Lease: time.Second, Heartbeat: time.Second}},
		{"prefetch", h, lanes.WorkerConfig{Prefetch: lanes.MaxClaim + 1}},
		{"job timeout", h, lanes.WorkerConfig{JobTimeout: -time.Second}},
		{"janitor", h, lanes.WorkerConfig{JanitorInterval: -time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := lanes.NewWorker(q, tc.h, &tc.cfg)
			var ae *echomq.ArgumentError
			require.ErrorAs(t, err, &ae)
		})
	}
}

// TestWorkerStopReleasesPrefetched: jobs claimed ahead of a free handler
// go back at once on Stop, without spending an attempt.
func TestWorkerStopReleasesPrefetched(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	for _, l := range []string{"a", "b", "c"} {
		enqueue(t, q, l, l)
	}
	started := make(chan struct{}, 3)
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	})
	w, err := lanes.NewWorker(q, h, fastWorker(lanes.WorkerConfig{Concurrency: 1, Prefetch: 2}))
	require.NoError(t, err)
	require.NoError(t, w.Start(ctx))
	echomqtest.Recv(t, started, 20*time.Second, "the handler to start")
	eventuallyWorker(t, w, func(s lanes.WorkerStats) bool { return s.Claimed == 3 })
	done, cancel := context.WithCancel(ctx)
	cancel()
	require.NoError(t, w.Stop(done))
	st, err := q.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(3), st.Waiting)
	require.Equal(t, int64(3), st.Released)
	require.Equal(t, int64(3), w.Stats().Released)
	jobs, err := q.Claim(ctx, 3, time.Minute)
	require.NoError(t, err)
	for _, j := range jobs {
		require.Equal(t, 1, j.Attempt, "no attempt spent")
	}
}

// TestWorkerJobTimeout: a run past JobTimeout is a failed attempt.
func TestWorkerJobTimeout(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	id := enqueue(t, q, "L", "slow")
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		if job.Attempt == 1 {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	startWorker(t, q, h, fastWorker(lanes.WorkerConfig{JobTimeout: 50 * time.Millisecond}))
	eventually(t, q, func(s lanes.Stats) bool { return s.Completed == 1 })
	info, err := q.Job(ctx, id)
	require.NoError(t, err)
	require.Equal(t, 2, info.Attempts)
	require.Contains(t, info.LastError, "deadline exceeded")
}
