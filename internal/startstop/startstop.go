// Package startstop is the base of EchoMQ's long-running services (the
// consumer, the set consumer, the lanes worker, the live projection, the
// archiver, the retention driver, the partition member): one contract for
// starting, stopping and refusing a second run.
//
// # State model
//
// A Service is idle (Stopped closed, nothing running) or running (one run
// function, on the caller's goroutine for Run or on a goroutine of its own
// for Start, whose context Stop cancels). Run or Start on a running
// service returns [ErrRunning]; Stop on an idle one does nothing; after the
// run function returns — because Stop was called or its context ended —
// Stopped is closed and the service may run again. Stop returns the run
// function's error.
package startstop

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrRunning means Run or Start was called on a service that is running.
var ErrRunning = errors.New("echomq: already running")

// Service runs one run function at a time. The zero value is idle and
// ready to use.
type Service struct {
	mu      sync.Mutex
	cancel  context.CancelFunc
	stopped chan struct{}
	err     error // the last run's error
}

// begin moves the service to running and returns the run's context.
func (s *Service) begin(ctx context.Context) (context.Context, chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return nil, nil, ErrRunning
	}
	runCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	s.cancel, s.stopped, s.err = cancel, stopped, nil
	return runCtx, stopped, nil
}

// end records the run's error and moves the service back to idle.
func (s *Service) end(stopped chan struct{}, err error) {
	s.mu.Lock()
	if s.stopped == stopped {
		s.err = err
		if s.cancel != nil {
			s.cancel()
		}
		s.cancel = nil
	}
	s.mu.Unlock()
	close(stopped)
}

// Run runs fn on the caller's goroutine with a context that ends when ctx
// ends or Stop is called, and returns its error; it returns [ErrRunning],
// running nothing, when the service is already running.
func (s *Service) Run(ctx context.Context, fn func(ctx context.Context) error) error {
	runCtx, stopped, err := s.begin(ctx)
	if err != nil {
		return err
	}
	err = fn(runCtx)
	s.end(stopped, err)
	return err
}

// Start runs fn in a goroutine the service owns, with a context that ends
// when ctx ends or Stop is called; it returns [ErrRunning], starting
// nothing, when the service is already running.
func (s *Service) Start(ctx context.Context, fn func(ctx context.Context) error) error {
	runCtx, stopped, err := s.begin(ctx)
	if err != nil {
		return err
	}
	go func() { s.end(stopped, fn(runCtx)) }()
	return nil
}

// Stop cancels the run and waits for it to return, or until ctx ends (then
// it returns ctx's error). It returns the run's error, or nil; stopping an
// idle service returns the last run's error, if any, again.
func (s *Service) Stop(ctx context.Context) error {
	s.mu.Lock()
	cancel, stopped := s.cancel, s.stopped
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if stopped != nil {
		select {
		case <-stopped:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stopped returns a channel closed when the run has ended (already closed
// before the first run).
func (s *Service) Stopped() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped == nil {
		s.stopped = make(chan struct{})
		close(s.stopped)
	}
	return s.stopped
}

// Tick calls fn at once, then every d after the previous call returned,
// until ctx ends. It returns nil: a tick loop ends only with its context.
func Tick(ctx context.Context, d time.Duration, fn func(ctx context.Context)) error {
	return Loop(ctx, func(ctx context.Context) (time.Duration, error) {
		fn(ctx)
		return d, nil
	})
}

// Loop calls fn at once, then again the delay it returned after it
// returned, until ctx ends (nil) or fn returns an error (returned): a
// sweep loop that slows down while the engine is away and stops on a
// permanent error.
func Loop(ctx context.Context, fn func(ctx context.Context) (time.Duration, error)) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		d, err := fn(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		t.Reset(d)
	}
}
