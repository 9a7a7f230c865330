package archive

import (
	"context"
	"errors"
	"time"

	"github.com/echomq/echomq/internal/outage"
)

// SweepResult is the outcome of one cycle over every policy.
type SweepResult struct {
	// Results holds one entry per policy, in order.
	Results []CycleResult
	// Errs holds each policy's error (nil when its cycle succeeded).
	Errs []error
	// Folded and Trimmed are the totals.
	Folded, Trimmed int64
	// Failed counts the cycles that returned an error.
	Failed int
}

// Err joins the cycles' errors (nil when none failed).
func (s SweepResult) Err() error { return errors.Join(s.Errs...) }

// Sweep runs one cycle of every configured policy, in order. A failing
// cycle does not stop the others; the returned error joins the failures.
func (a *Archiver) Sweep(ctx context.Context) (SweepResult, error) {
	res := SweepResult{Results: make([]CycleResult, 0, len(a.cfg.Policies)), Errs: make([]error, 0, len(a.cfg.Policies))}
	for _, p := range a.cfg.Policies {
		r, err := a.Cycle(ctx, p)
		res.Results = append(res.Results, r)
		res.Errs = append(res.Errs, err)
		res.Folded += r.Folded
		res.Trimmed += r.Trimmed
		if err != nil {
			res.Failed++
		}
	}
	return res, res.Err()
}

// Run runs the background sweeps on the caller's goroutine: one at once,
// then one a tick after the previous ended, until ctx ends or
// [Archiver.Stop] is called; then it returns nil. A failing cycle is
// logged and retried on the next sweep. Run rides out the engine's
// outages: while every failure of a sweep matches [echomq.ErrUnavailable]
// the outage is logged once on Config.Logger ("echomq: archiver: engine
// unavailable; retrying"), the sweeps back off to at least 2s apart, and
// the first sweep without one logs the end ("echomq: archiver: engine
// back"). A cycle cut off by an outage commits nothing it had not
// committed and trims nothing it had not archived. Run stops only when ctx
// ends or the client is closed (it returns [echomq.ErrClosed]), and logs
// which. It returns [echomq.ErrRunning]
// when the archiver is already running. (The service contract is the
// root package's: see "Services" in its documentation.)
func (a *Archiver) Run(ctx context.Context) error {
	return a.svc.Run(ctx, a.sweeps)
}

// Start runs [Archiver.Run] in a goroutine the archiver owns and returns at
// once; [Archiver.Stop] ends it. It returns [echomq.ErrRunning] when the
// archiver is already running.
func (a *Archiver) Start(ctx context.Context) error {
	return a.svc.Start(ctx, a.sweeps)
}

func (a *Archiver) sweeps(ctx context.Context) error {
	return outage.RunSweeps(ctx, a.cfg.Logger, "echomq: archiver", a.cfg.Tick, a.sweepOnce)
}

// sweepOnce is one background sweep. A cycle that failed is retried on the
// next sweep: transient failures count toward an outage (logged once, the
// next sweep backed off), permanent ones are logged each; a closed client
// stops the sweeps.
func (a *Archiver) sweepOnce(ctx context.Context, s *outage.Sweeps) (time.Duration, error) {
	res, _ := a.Sweep(ctx)
	if ctx.Err() != nil {
		return 0, nil
	}
	next, permanent, stop := s.Done(res.Errs)
	if stop != nil {
		return 0, stop
	}
	for _, i := range permanent {
		a.cfg.Logger.Warn("archive: cycle failed; retrying next sweep", "policy", a.cfg.Policies[i].String(), "err", res.Errs[i])
	}
	if a.cfg.OnSweep != nil {
		a.cfg.OnSweep(res)
	}
	return next, nil
}

// Stop ends the background sweeps and waits for the cycle in flight (a
// cycle interrupted by the stop commits nothing it had not committed), or
// until ctx ends (then it returns ctx's error). Stopping an archiver that
// is not running does nothing.
func (a *Archiver) Stop(ctx context.Context) error { return a.svc.Stop(ctx) }

// Stopped returns a channel closed when the background sweeps have ended
// (already closed before the first run).
func (a *Archiver) Stopped() <-chan struct{} { return a.svc.Stopped() }
