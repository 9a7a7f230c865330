// Package startstop is the base of EchoMQ's background services (the
// retention driver, the archiver): Start launches one owned goroutine,
// Stop cancels it and waits, Stopped reports its end.
//
// # State model
//
// A Service is idle (Stopped closed, no goroutine) or running (one
// goroutine whose context Stop cancels). Start on a running service is
// refused; Stop on an idle one does nothing; after the goroutine returns —
// because Stop was called or the Start context ended — Stopped is closed and
// the service may be started again.
package startstop

import (
	"context"
	"sync"
	"time"
)

// Service runs one background goroutine at a time. The zero value is idle
// and ready to use.
type Service struct {
	mu      sync.Mutex
	cancel  context.CancelFunc
	stopped chan struct{}
}

// Start runs fn in a goroutine with a context that ends when ctx ends or
// Stop is called; it returns false, starting nothing, when the service is
// already running.
func (s *Service) Start(ctx context.Context, fn func(ctx context.Context)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return false
	}
	runCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	s.cancel, s.stopped = cancel, stopped
	go func() {
		defer close(stopped)
		defer cancel()
		fn(runCtx)
		s.mu.Lock()
		if s.stopped == stopped {
			s.cancel = nil // ended by its context: startable again
		}
		s.mu.Unlock()
	}()
	return true
}

// Stop cancels the goroutine and waits for it to return, or until ctx ends
// (then it returns ctx's error). Stopping an idle service does nothing.
func (s *Service) Stop(ctx context.Context) error {
	s.mu.Lock()
	cancel, stopped := s.cancel, s.stopped
	s.cancel = nil
	s.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stopped returns a channel closed when the goroutine has ended (already
// closed before the first Start).
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
// until ctx ends.
func Tick(ctx context.Context, d time.Duration, fn func(ctx context.Context)) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fn(ctx)
		if ctx.Err() != nil {
			return
		}
		t.Reset(d)
	}
}
