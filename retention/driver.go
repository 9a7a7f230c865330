package retention

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/startstop"
)

// Config configures a [Driver]. The zero value (no policies) is valid and
// trims nothing: retention is opt-in.
type Config struct {
	// Policies are applied in order on each sweep; one stream may appear
	// once. Defaults to none.
	Policies []Policy

	// Tick is the delay between the end of one sweep and the start of the
	// next. Defaults to 1s.
	Tick time.Duration

	// Clock is "now" for [Ago] rules. Defaults to the client's clock
	// ([echomq.Client.Now]).
	Clock echomq.Clock

	// Logger receives a warning for each policy that fails in a background
	// sweep. Defaults to slog.Default().
	Logger *slog.Logger

	// OnSweep, when set, is called by the running driver after each sweep
	// (from its goroutine): a signal for tests and a hook for metrics.
	// Defaults to nil.
	OnSweep func(SweepResult)
}

// SweepResult is the outcome of one sweep over every policy.
type SweepResult struct {
	// Results holds one entry per policy, in order.
	Results []Result
	// Trimmed is the total removed.
	Trimmed int64
	// Failed counts the policies that were not applied.
	Failed int
}

// Err joins the errors of the failed policies (nil when none failed).
func (s SweepResult) Err() error {
	var errs []error
	for _, r := range s.Results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errors.Join(errs...)
}

// Driver applies retention policies on a tick. It is safe for concurrent
// use; Start and Stop may be called from any goroutine.
type Driver struct {
	client *echomq.Client
	cfg    Config

	svc startstop.Service // the background sweeps
}

// New returns a driver for cfg's policies; nil cfg means the defaults. It
// returns an [*echomq.ArgumentError] for a nil client, a negative tick or a
// stream named by two policies, and a policy's [*echomq.NameError] or
// [*echomq.ArgumentError]; all before any I/O.
func New(client *echomq.Client, cfg *Config) (*Driver, error) {
	if client == nil {
		return nil, &echomq.ArgumentError{Name: "client", Reason: "must not be nil"}
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.Tick < 0 {
		return nil, &echomq.ArgumentError{Name: "tick", Reason: "must not be negative"}
	}
	if c.Tick == 0 {
		c.Tick = time.Second
	}
	if c.Clock == nil {
		c.Clock = client.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	seen := make(map[[2]string]bool, len(c.Policies))
	for _, p := range c.Policies {
		if err := p.Validate(); err != nil {
			return nil, err
		}
		k := [2]string{p.Queue, p.Stream}
		if seen[k] {
			return nil, &echomq.ArgumentError{Name: "retention policies", Reason: p.Queue + "/" + p.Stream + " is named twice"}
		}
		seen[k] = true
	}
	c.Policies = append([]Policy(nil), c.Policies...)
	return &Driver{client: client, cfg: c}, nil
}

// Sweep applies every policy once, now read from the clock, and returns
// each policy's outcome. A policy that fails (a stream under archive
// control, an engine error) does not stop the others; the returned error
// joins the failures (see [SweepResult.Err]).
func (d *Driver) Sweep(ctx context.Context) (SweepResult, error) {
	now := d.cfg.Clock()
	res := SweepResult{Results: make([]Result, 0, len(d.cfg.Policies))}
	for _, p := range d.cfg.Policies {
		r, err := Apply(ctx, d.client, p, now)
		if err != nil {
			res.Failed++
		}
		res.Trimmed += r.Trimmed
		res.Results = append(res.Results, r)
	}
	return res, res.Err()
}

// Run checks that no policy's stream is under archive control (returning
// the [*ArchivedError]s joined, and running nothing, when one is), then
// runs the background sweeps on the caller's goroutine: one at once, then
// one a tick after the previous ended, until ctx ends or [Driver.Stop] is
// called; then it returns nil. It returns [echomq.ErrRunning] when the
// driver is already running, and the engine's permanent errors from the
// check.
//
// Run rides out the engine's outages: a check the engine could not answer
// is made again before the first sweep, and while every failure of a
// sweep matches [echomq.ErrUnavailable] the outage is logged once on
// Config.Logger ("echomq: retention: engine unavailable; retrying"), the
// sweeps back off to at least 2s apart, and the first sweep without one
// logs the end ("echomq: retention: engine back"). It stops only when ctx
// ends, the client is closed ([echomq.ErrClosed]) or a stream checked late
// turns out to be under archive control (its [*ArchivedError]), and logs
// which. (The
// service contract is the root package's: see "Services" in its
// documentation.)
func (d *Driver) Run(ctx context.Context) error {
	pending, err := d.check(ctx)
	if err != nil {
		return err
	}
	return d.svc.Run(ctx, func(ctx context.Context) error { return d.sweeps(ctx, pending) })
}

// Start is [Driver.Run] in a goroutine the driver owns: it makes the same
// check, returns its errors at once, and otherwise starts the sweeps and
// returns; [Driver.Stop] ends them. It returns [echomq.ErrRunning] when the
// driver is already running.
func (d *Driver) Start(ctx context.Context) error {
	pending, err := d.check(ctx)
	if err != nil {
		return err
	}
	return d.svc.Start(ctx, func(ctx context.Context) error { return d.sweeps(ctx, pending) })
}

// check looks for policies whose stream is under archive control. It
// returns their errors joined, or, when the engine could not answer for
// some (a transient failure), the policies still to be checked: the sweeps
// check them first, as the engine comes back, instead of failing a driver
// started during an outage.
func (d *Driver) check(ctx context.Context) (pending []Policy, err error) {
	var errs []error
	for _, p := range d.cfg.Policies {
		err := underArchive(ctx, d.client, p.Queue, p.Stream)
		switch {
		case err == nil:
		case outage.Transient(err) && ctx.Err() == nil:
			pending = append(pending, p)
		default:
			errs = append(errs, err)
		}
	}
	return pending, errors.Join(errs...)
}

func (d *Driver) sweeps(ctx context.Context, pending []Policy) error {
	return outage.RunSweeps(ctx, d.cfg.Logger, "echomq: retention", d.cfg.Tick, func(ctx context.Context, s *outage.Sweeps) (time.Duration, error) {
		if len(pending) > 0 {
			errs := make([]error, len(pending))
			left := pending[:0:0]
			for i, p := range pending {
				errs[i] = underArchive(ctx, d.client, p.Queue, p.Stream)
				if outage.Transient(errs[i]) {
					left = append(left, p)
				}
			}
			pending = left
			next, permanent, stop := s.Done(errs)
			if stop == nil && len(permanent) > 0 {
				stop = errors.Join(errs...)
			}
			if stop != nil || len(pending) > 0 {
				return next, stop
			}
		}
		return d.sweepOnce(ctx, s)
	})
}

// sweepOnce is one background sweep: failures are tried again on the next
// sweep, transient ones counted toward an outage (logged once, the next
// sweep backed off), permanent ones logged each; a closed client stops the
// sweeps.
func (d *Driver) sweepOnce(ctx context.Context, s *outage.Sweeps) (time.Duration, error) {
	res, _ := d.Sweep(ctx)
	if ctx.Err() != nil {
		return 0, nil
	}
	errs := make([]error, len(res.Results))
	for i, r := range res.Results {
		errs[i] = r.Err
	}
	next, permanent, stop := s.Done(errs)
	if stop != nil {
		return 0, stop
	}
	for _, i := range permanent {
		r := res.Results[i]
		d.cfg.Logger.Warn("retention: policy not applied", "policy", r.Policy.String(), "err", r.Err)
	}
	if d.cfg.OnSweep != nil {
		d.cfg.OnSweep(res)
	}
	return next, nil
}

// Stop ends the background sweeps and waits for the one in flight, or
// until ctx ends (then it returns ctx's error). Stopping a driver that is
// not running does nothing.
func (d *Driver) Stop(ctx context.Context) error { return d.svc.Stop(ctx) }

// Stopped returns a channel closed when the background sweeps have ended
// (already closed before the first run).
func (d *Driver) Stopped() <-chan struct{} { return d.svc.Stopped() }
