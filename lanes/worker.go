package lanes

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/startstop"
)

// ErrRunning means [Worker.Start] or [Worker.Run] was called on a worker that was
// started before. It is [echomq.ErrRunning], the value every service
// returns.
var ErrRunning = echomq.ErrRunning

// errShutdown is the cancel cause of handlers whose grace ended.
var errShutdown = errors.New("echomq: lanes: worker shut down")

// WorkerConfig configures a [Worker]. The zero value is a working
// configuration.
type WorkerConfig struct {
	// Concurrency is how many handlers run at once in this process
	// (1..10000). Defaults to 10.
	Concurrency int

	// Lease is how long a claim holds a job before the janitor may give it
	// back; heartbeats renew it while the handler runs. Defaults to 30s.
	Lease time.Duration

	// Heartbeat is how often the leases of running jobs are renewed; it
	// must be below Lease. Defaults to Lease/3.
	Heartbeat time.Duration

	// Backoff says how long a failed job's lane is held. Defaults to
	// [DefaultBackoff]: exponential from 1s to 10min with jitter.
	Backoff Backoff

	// JanitorInterval is the longest time between two sweeps of this
	// worker's janitor; it also sweeps when the next lease deadline, due
	// time or hold end comes, and when this worker's own failures end their
	// backoff. Defaults to 1s.
	JanitorInterval time.Duration

	// IdleWait is the longest time the dispatcher parks on the queue's wake
	// list when there is nothing to claim; a wake token ends the wait at
	// once. Defaults to 1s.
	IdleWait time.Duration

	// Prefetch is how many jobs the worker keeps claimed beyond its busy
	// handlers (0..1000), so a handler that finishes starts its next job at
	// once instead of waiting for a claim. A prefetched job is in flight for
	// its lane and its lease is renewed like a running one's. Defaults to
	// Concurrency; a negative value prefetches nothing.
	Prefetch int

	// JobTimeout bounds one run of a handler; when it passes the handler's
	// ctx is cancelled and its result counts as a failed attempt. Defaults
	// to 0: no timeout.
	JobTimeout time.Duration

	// ShutdownGrace is how long running handlers may finish once the ctx
	// given to Start is cancelled, before they are cancelled and their jobs
	// released. [Worker.Stop] takes its grace from its own ctx instead.
	// Defaults to 10s.
	ShutdownGrace time.Duration

	// Logger receives settle failures and engine errors. Defaults to
	// slog.Default().
	Logger *slog.Logger
}

func (c WorkerConfig) withDefaults() (WorkerConfig, error) {
	if c.Concurrency == 0 {
		c.Concurrency = 10
	}
	if c.Lease == 0 {
		c.Lease = 30 * time.Second
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = c.Lease / 3
	}
	if c.Backoff == nil {
		c.Backoff = DefaultBackoff()
	}
	if c.JanitorInterval == 0 {
		c.JanitorInterval = time.Second
	}
	if c.IdleWait == 0 {
		c.IdleWait = time.Second
	}
	if c.Prefetch == 0 {
		c.Prefetch = min(c.Concurrency, MaxClaim)
	}
	if c.Prefetch < 0 {
		c.Prefetch = 0
	}
	if c.ShutdownGrace == 0 {
		c.ShutdownGrace = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	switch {
	case c.Concurrency < 1 || c.Concurrency > 10000:
		return c, argError("concurrency", strconv.Itoa(c.Concurrency)+" is outside 1..10000")
	case c.Lease < MinLease:
		return c, argError("lease", c.Lease.String()+" is below "+MinLease.String())
	case c.Heartbeat <= 0 || c.Heartbeat >= c.Lease:
		return c, argError("heartbeat", c.Heartbeat.String()+" is not between 0 and the lease "+c.Lease.String())
	case c.JanitorInterval < time.Millisecond:
		return c, argError("janitor interval", c.JanitorInterval.String()+" is below 1ms")
	case c.IdleWait < time.Millisecond:
		return c, argError("idle wait", c.IdleWait.String()+" is below 1ms")
	case c.Prefetch > MaxClaim:
		return c, argError("prefetch", strconv.Itoa(c.Prefetch)+" is above "+strconv.Itoa(MaxClaim))
	case c.JobTimeout < 0:
		return c, argError("job timeout", c.JobTimeout.String()+" is negative")
	case c.ShutdownGrace < 0:
		return c, argError("shutdown grace", c.ShutdownGrace.String()+" is negative")
	}
	return c, nil
}

// Worker serves a queue in this process: a dispatcher claims jobs while it
// holds fewer than Concurrency+Prefetch and otherwise waits; when there is
// nothing to claim it parks on the queue's wake list. Concurrency handler
// goroutines run the claimed jobs. A heartbeat renews the leases of the
// claimed jobs and cancels the ones whose lease was lost; a janitor sweeps
// lapsed leases, due delayed jobs and ended holds. Run one or many per
// queue, in one or many processes. A Worker is safe for concurrent use and
// runs once.
//
// A worker rides out the engine's outages (a restart, a hung engine, a
// partition): failed claims, waits, heartbeats and sweeps matching
// [echomq.ErrUnavailable] are retried with a backoff (the dispatcher's
// from 50ms to 2s; heartbeats and sweeps on their own beat), a settle that
// fails so is retried until the job's lease would have lapsed, and the
// outage is logged once on the Logger ("echomq: lanes worker: engine
// unavailable; retrying"), its end once ("echomq: lanes worker: engine
// back"). Running handlers keep running. The worker stops only by
// [Worker.Stop], the end of Start's ctx, or a permanent error of its
// dispatcher (a closed client, a key of the wrong type), which it logs
// and [Worker.Run] and Stop return.
type Worker struct {
	q   *Queue
	h   Handler
	cfg WorkerConfig
	log *slog.Logger

	mu      sync.Mutex
	running map[*Job]*run // claimed and not yet settled: queued or in a handler

	held  atomic.Int64  // len(running), read without the lock
	queue chan *run     // claimed jobs waiting for a handler
	freed chan struct{} // a claimed job was settled
	poke  chan struct{} // sweep now
	due   chan time.Duration

	base      context.Context // handlers' parent: values of Start's ctx, never cancelled by it
	stopping  atomic.Bool
	dispatchW sync.WaitGroup
	loopsW    sync.WaitGroup
	handlersW sync.WaitGroup

	svc     startstop.Service  // Run, Start, Stop and Stopped
	started atomic.Bool        // a worker runs once
	end     context.CancelFunc // ends the run: a permanent error of the dispatcher
	graceMu sync.Mutex
	grace   context.Context // the ctx of the first Stop: the handlers' grace

	stats  workerCounters
	watch  *outage.Watch   // logs each outage of the engine once
	halt   context.Context // ends when Stop begins: settle retries give up
	failed outcome         // the permanent error the worker stopped on
	hooks  []JobHook       // the client's, see worker_hooks.go

	beatsOff atomic.Bool // tests hold the heartbeat to let a lease lapse
}

// run is one claimed job.
type run struct {
	job      *Job
	ctx      context.Context
	cancel   context.CancelCauseFunc
	released bool          // given back by Stop; the handler's result is dropped
	ran      time.Duration // how long the handler ran, measured when hooks are set
}

// NewWorker returns a worker running h on q's jobs. It returns an
// [*echomq.ArgumentError] for a nil handler or a configuration out of
// range, and does no I/O.
func NewWorker(q *Queue, h Handler, cfg *WorkerConfig) (*Worker, error) {
	if h == nil {
		return nil, argError("handler", "is nil")
	}
	var c WorkerConfig
	if cfg != nil {
		c = *cfg
	}
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Worker{
		q: q, h: h, cfg: c, log: c.Logger.With("queue", q.name),
		watch:   outage.New(c.Logger, "echomq: lanes worker", "queue", q.name),
		running: map[*Job]*run{},
		queue:   make(chan *run, c.Concurrency+c.Prefetch),
		freed:   make(chan struct{}, 1),
		poke:    make(chan struct{}, 1),
		due:     make(chan time.Duration, 64),
		hooks:   echomq.HooksOf[JobHook](q.client),
	}, nil
}

// Start starts the worker's goroutines and returns. The worker runs until
// [Worker.Stop], or until ctx is cancelled, which stops it like Stop with
// WorkerConfig.ShutdownGrace. Handlers get ctx's values but not its
// cancellation. It returns [ErrRunning] when called twice.
func (w *Worker) Start(ctx context.Context) error {
	if !w.started.CompareAndSwap(false, true) {
		return ErrRunning
	}
	return w.svc.Start(ctx, w.serve)
}

// Run starts the worker, blocks until ctx is cancelled and then stops it
// with WorkerConfig.ShutdownGrace. It returns the errors of Start and Stop.
func (w *Worker) Run(ctx context.Context) error {
	if !w.started.CompareAndSwap(false, true) {
		return ErrRunning
	}
	return w.svc.Run(ctx, w.serve)
}

// Stop shuts the worker down: it stops claiming, releases the claimed jobs
// no handler started, lets running handlers finish until ctx is done, then
// cancels the rest and releases their jobs to the head of their lanes
// without spending an attempt (a handler that returns an error after that
// cancellation has its job released too). It returns when the worker's
// goroutines are gone, apart from handlers that ignore their cancelled
// ctx. Stop is idempotent; it returns an error only when the worker had
// stopped on a permanent engine error (see [Worker]) or releasing a job
// failed (the janitor then takes the job back after its lease), and nil
// for a worker never started.
func (w *Worker) Stop(ctx context.Context) error {
	if !w.started.Load() {
		return nil // never run: nothing to stop, and no grace to keep
	}
	w.graceMu.Lock()
	if w.grace == nil {
		w.grace = ctx
	}
	w.graceMu.Unlock()
	// ctx is the handlers' grace, not a bound on the wait: the shutdown
	// ends by itself cancelWait after the grace.
	return w.svc.Stop(context.WithoutCancel(ctx))
}

// Stopped returns a channel closed once the worker has stopped (already
// closed before Start).
func (w *Worker) Stopped() <-chan struct{} { return w.svc.Stopped() }

// serve is the worker's run on [startstop.Service]: it starts the
// dispatcher, the handlers, the heartbeat and the janitor, waits until ctx
// ends (the end of Start's ctx or Run's, or Stop) or the dispatcher fails
// permanently, then shuts them down within the grace of the first Stop, or
// WorkerConfig.ShutdownGrace when none was called.
func (w *Worker) serve(ctx context.Context) error {
	ctx, w.end = context.WithCancel(ctx)
	defer w.end()
	w.base = context.WithoutCancel(ctx)
	claimCtx, stopClaim := context.WithCancel(context.Background())
	loopCtx, stopLoops := context.WithCancel(context.Background())
	defer stopLoops()
	w.halt = claimCtx
	w.dispatchW.Add(1)
	go w.dispatch(claimCtx)
	for range w.cfg.Concurrency {
		w.handlersW.Add(1)
		go w.handle()
	}
	w.loopsW.Add(2)
	go w.heartbeat(loopCtx)
	go w.janitor(loopCtx)
	<-ctx.Done()

	w.graceMu.Lock()
	grace := w.grace
	w.graceMu.Unlock()
	if grace == nil {
		var cancel context.CancelFunc
		grace, cancel = context.WithTimeout(context.Background(), w.cfg.ShutdownGrace)
		defer cancel()
	}
	w.stopping.Store(true)
	stopClaim()
	w.dispatchW.Wait()
	var errs []error
	for drained := false; !drained; {
		select {
		case r := <-w.queue:
			errs = append(errs, w.giveBack(r))
		default:
			drained = true
		}
	}
	close(w.queue)
	errs = append(errs, w.drain(grace))
	stopLoops()
	w.loopsW.Wait()
	return errors.Join(append([]error{w.failed.get()}, errs...)...)
}
