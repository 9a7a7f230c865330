// Package outage is how EchoMQ's long-running components live through an
// engine that blinks: one [Watch] per component logs the outage once, when
// the first call fails with a transient error, and its end once, at the
// first call that succeeds after it, however many loops of the component
// fail meanwhile; and it paces the retries with a capped exponential
// backoff, so a component waiting for the engine costs next to nothing.
//
// # State model
//
// A Watch is up (no outage) or down (since the first transient failure).
// [Watch.Failed] moves up → down and logs "<component>: engine
// unavailable; retrying" at Warn with the error; [Watch.OK] moves down →
// up and logs "<component>: engine back" at Info with the outage's length.
// Both are no-ops in the state they lead to, so concurrent loops of one
// component share one Watch and one pair of lines per outage. The
// messages are a documented contract (docs/faults.md): operators alert on
// them and the fault matrix counts them.
package outage

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/echomq/echomq/internal/wire"
)

// Default backoff of a component waiting for the engine: the first retry
// after Min, doubling up to Max.
const (
	Min = 100 * time.Millisecond
	Max = 2 * time.Second
)

// The messages of the two log lines, after "<component>: ".
const (
	DownMsg = "engine unavailable; retrying"
	UpMsg   = "engine back"
)

// Watch tracks the outages of one component. The zero value is not
// usable; make one with [New]. Its methods are safe for concurrent use.
type Watch struct {
	log  *slog.Logger
	name string

	mu    sync.Mutex
	since time.Time // zero: up
	downs int64
}

// New returns a Watch logging to log under the component name (e.g.
// "echomq: consumer"); attrs are added to both lines.
func New(log *slog.Logger, name string, attrs ...any) *Watch {
	if log == nil {
		log = slog.Default()
	}
	return &Watch{log: log.With(attrs...), name: name}
}

// Transient reports whether err may pass by itself (see wire.Transient).
func Transient(err error) bool { return wire.Transient(err) }

// Failed records a failed call of op. A transient error starts an outage
// (logged once, true returned the first time); a permanent error changes
// nothing and returns false.
func (w *Watch) Failed(op string, err error) bool {
	if !Transient(err) {
		return false
	}
	w.mu.Lock()
	first := w.since.IsZero()
	if first {
		w.since = time.Now()
		w.downs++
	}
	w.mu.Unlock()
	if first {
		w.log.Warn(w.name+": "+DownMsg, "op", op, "err", err)
	}
	return first
}

// OK records a call that succeeded: it ends the outage, logging it once.
func (w *Watch) OK() {
	w.mu.Lock()
	since := w.since
	w.since = time.Time{}
	w.mu.Unlock()
	if !since.IsZero() {
		w.log.Info(w.name+": "+UpMsg, "outage", time.Since(since).Round(time.Millisecond))
	}
}

// Down reports whether an outage is going on.
func (w *Watch) Down() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.since.IsZero()
}

// Outages returns how many outages began.
func (w *Watch) Outages() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.downs
}

// Backoff is the delay of one retry loop: Next returns Min, then doubles
// up to Max; Reset starts over. A loop owns its Backoff (not safe for
// concurrent use); the zero value uses [Min] and [Max].
type Backoff struct {
	Min, Max time.Duration
	cur      time.Duration
}

// Next returns the delay before the next retry.
func (b *Backoff) Next() time.Duration {
	lo, hi := b.Min, b.Max
	if lo <= 0 {
		lo = Min
	}
	if hi < lo {
		hi = max(Max, lo)
	}
	if b.cur < lo {
		b.cur = lo
	} else {
		b.cur = min(2*b.cur, hi)
	}
	return b.cur
}

// Reset makes the next delay Min again.
func (b *Backoff) Reset() { b.cur = 0 }

// Sleep waits d and reports true, or false when ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
