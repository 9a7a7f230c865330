package projection

import (
	"time"

	"github.com/echomq/echomq"
)

type windowKind uint8

const (
	kindAll windowKind = iota
	kindSince
	kindBetween
	kindLast
	kindIDs
)

// Window is the slice of the log a fold reads. Time windows work at the
// millisecond of the mint instant, the resolution of entry ids: an event
// belongs to a window when the millisecond it was minted in lies in it, so
// a window edge never splits the several events of one millisecond. Use
// [IDs] to cut inside a millisecond.
//
// The zero Window is [All].
type Window struct {
	kind   windowKind
	t0, t1 time.Time
	d      time.Duration
	r      echomq.Range
	clock  echomq.Clock
}

// All is the whole log.
var All Window

// Since is the half-open window [t0, ∞).
func Since(t0 time.Time) Window { return Window{kind: kindSince, t0: t0} }

// Between is the closed window [t0, t1], both milliseconds included; [t, t]
// is valid. A t1 before t0 is refused by the fold with an
// [*echomq.RangeError] before any I/O.
func Between(t0, t1 time.Time) Window { return Window{kind: kindBetween, t0: t0, t1: t1} }

// Last is the closed window [now-d, now], now read from the window's clock
// (see [Window.WithClock]) when the fold starts. A d that is not positive is
// refused by the fold with an [*echomq.ArgumentError] before any I/O.
func Last(d time.Duration) Window { return Window{kind: kindLast, d: d} }

// IDs is the window of an entry id range, whose bounds may fall inside a
// millisecond. An inverted range is refused by the fold with an
// [*echomq.RangeError] before any I/O.
func IDs(r echomq.Range) Window { return Window{kind: kindIDs, r: r} }

// WithClock returns the window reading now from c. Without it a window
// relative to now reads the clock of the first source that has one (the
// Config.Clock of an *echomq.Stream's client), else time.Now.
func (w Window) WithClock(c echomq.Clock) Window { w.clock = c; return w }

// Relative reports whether the window moves with the clock ([Last]).
func (w Window) Relative() bool { return w.kind == kindLast }

// Resolve returns the entry id range the window covers when the clock reads
// now. Errors: [*echomq.RangeError] for an inverted window,
// [*echomq.ArgumentError] for a Last duration that is not positive.
func (w Window) Resolve(now time.Time) (echomq.Range, error) {
	var r echomq.Range
	switch w.kind {
	case kindAll:
		r = echomq.All
	case kindSince:
		r = echomq.Since(w.t0)
	case kindBetween:
		r = echomq.Window(w.t0, w.t1)
	case kindLast:
		if w.d <= 0 {
			return echomq.Range{}, argError("window", "last "+w.d.String()+": the duration must be positive")
		}
		r = echomq.Window(now.Add(-w.d), now)
	case kindIDs:
		r = w.r
	}
	if err := r.Validate(); err != nil {
		return echomq.Range{}, err
	}
	return r, nil
}

// resolve resolves the window against its clock, or the sources' clock.
func (w Window) resolve(list []Source) (echomq.Range, error) {
	if w.kind != kindLast {
		return w.Resolve(time.Time{})
	}
	clock := w.clock
	if clock == nil {
		clock = clockOf(list)
	}
	return w.Resolve(clock())
}

// String renders the window in the form [ParseWindow] reads.
func (w Window) String() string {
	switch w.kind {
	case kindSince:
		return "since:" + w.t0.UTC().Format(time.RFC3339Nano)
	case kindBetween:
		return "between:" + w.t0.UTC().Format(time.RFC3339Nano) + "," + w.t1.UTC().Format(time.RFC3339Nano)
	case kindLast:
		return "last:" + w.d.String()
	case kindIDs:
		return "ids:" + lowerString(w.r.From) + "," + upperString(w.r.To)
	}
	return "all"
}

func lowerString(b echomq.Bound) string {
	if b.IsUnbounded() {
		return "-"
	}
	return b.String()
}

func upperString(b echomq.Bound) string {
	if b.IsUnbounded() {
		return "+"
	}
	return b.String()
}
