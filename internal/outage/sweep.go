package outage

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/echomq/echomq/internal/startstop"
	"github.com/echomq/echomq/internal/wire"
)

// Sweeps paces a component that works in sweeps over a list of items (the
// archiver's policies, the retention driver's): after each sweep
// [Sweeps.Done] learns the items' errors and says when to sweep next and
// whether to stop. Not safe for concurrent use: one loop owns it.
type Sweeps struct {
	Watch *Watch
	Tick  time.Duration // the delay between two sweeps without an outage
	back  Backoff
}

// Done records one sweep's errors (nil for an item that succeeded). A
// sweep whose failures are all transient is an outage (logged once by the
// Watch) and the next sweep waits at least the backoff, so a short Tick
// does not spin against an engine that is away; a sweep with no transient
// failure ends an outage. permanent lists the items whose error is not
// transient, for the caller to log; stop is [wire.ErrClosed] when the
// client was closed (no later sweep can succeed: the component stops).
func (s *Sweeps) Done(errs []error) (next time.Duration, permanent []int, stop error) {
	var down error
	for i, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, wire.ErrClosed):
			return 0, nil, err
		case Transient(err):
			down = err
		default:
			permanent = append(permanent, i)
		}
	}
	if down == nil {
		s.Watch.OK()
		s.back.Reset()
		return s.Tick, permanent, nil
	}
	s.Watch.Failed("sweep", down)
	return max(s.Tick, s.back.Next()), permanent, nil
}

// RunSweeps runs sweep at once, then again the delay it returns after it
// returned, until ctx ends (nil) or sweep returns an error (returned), and
// logs which ended it: "<name>: stopped" with reason=context ended, or
// "<name>: stopped on a permanent error". Each sweep gets the loop's
// [Sweeps], watching outages under name.
func RunSweeps(ctx context.Context, log *slog.Logger, name string, tick time.Duration,
	sweep func(ctx context.Context, s *Sweeps) (time.Duration, error),
) error {
	s := &Sweeps{Watch: New(log, name), Tick: tick}
	err := startstop.Loop(ctx, func(ctx context.Context) (time.Duration, error) { return sweep(ctx, s) })
	if err != nil {
		log.Error(name+": stopped on a permanent error", "err", err)
		return err
	}
	log.Info(name+": stopped", "reason", "context ended")
	return nil
}
