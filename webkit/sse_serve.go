package webkit

import (
	"context"
	"time"
)

// Loop is what [Serve] runs on a stream besides its keep-alive: events
// from a feed, events on a timer, or both.
type Loop[T any] struct {
	// Stop ends the stream when it closes: a "shutdown" event tells the
	// client to reconnect elsewhere or later instead of reading the cut
	// stream as an error. A server closes it on shutdown, since
	// http.Server.Shutdown waits for requests to finish and a stream would
	// not on its own. Nil: never.
	Stop <-chan struct{}
	// In is a feed; every item received goes to On. Nil: none.
	In <-chan T
	On func(ctx context.Context, s *Stream, item T) error
	// Every, when positive, runs Tick at that interval.
	Every time.Duration
	Tick  func(ctx context.Context, s *Stream) error
}

// Serve runs l on s in the calling goroutine until ctx ends (the client
// went away: nil), Stop closes (nil, after the "shutdown" event), or a
// write, On or Tick fails (that error). While nothing else is written for
// StreamConfig.KeepAlive it sends a comment. It starts no goroutine, and
// its timers are stopped when it returns.
func Serve[T any](ctx context.Context, s *Stream, l Loop[T]) error {
	var keep, tick <-chan time.Time
	if s.cfg.KeepAlive > 0 {
		t := time.NewTicker(s.cfg.KeepAlive)
		defer t.Stop()
		keep = t.C
	}
	if l.Every > 0 && l.Tick != nil {
		t := time.NewTicker(l.Every)
		defer t.Stop()
		tick = t.C
	}
	s.written = false
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-l.Stop:
			return s.Event("shutdown", "", []byte("{}"))
		case <-keep:
			if !s.written {
				err = s.Comment("keep-alive")
			}
			s.written = false
		case <-tick:
			err = l.Tick(ctx, s)
		case item := <-l.In:
			err = l.On(ctx, s, item)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}
