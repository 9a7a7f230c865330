package echomq

import (
	"strings"
	"time"
)

// Bound is one end of a [Range]: unbounded (the zero value), an inclusive
// entry id, or an exclusive one.
type Bound struct {
	set  bool
	excl bool
	id   EntryID
}

// Unbounded is the open end: the start of the stream as a lower bound, its
// end as an upper bound.
var Unbounded = Bound{}

// Inclusive returns a bound that includes e.
func Inclusive(e EntryID) Bound { return Bound{set: true, id: e} }

// Exclusive returns a bound that excludes e.
func Exclusive(e EntryID) Bound { return Bound{set: true, excl: true, id: e} }

// At returns the inclusive bound at an EVT id's entry.
func At(id ID) Bound { return Inclusive(id.EntryID()) }

// After returns the exclusive bound at an EVT id's entry.
func After(id ID) Bound { return Exclusive(id.EntryID()) }

// IsUnbounded reports whether b is the open end.
func (b Bound) IsUnbounded() bool { return !b.set }

// EntryID returns the bound's entry id and whether it excludes it.
func (b Bound) EntryID() (e EntryID, exclusive bool) { return b.id, b.excl }

// String returns the XRANGE form: "-"/"+" is written by the side, so the
// unbounded bound prints as "".
func (b Bound) String() string {
	if !b.set {
		return ""
	}
	if b.excl {
		return "(" + b.id.String()
	}
	return b.id.String()
}

func (b Bound) lower() string {
	if !b.set {
		return "-"
	}
	return b.String()
}

func (b Bound) upper() string {
	if !b.set {
		return "+"
	}
	return b.String()
}

// ParseBound parses "-" or "+" (unbounded), an entry id "<ms>-<seq>" or
// "<ms>", an EVT branded id (its entry), each optionally prefixed with "("
// for an exclusive bound. It returns an [*IDError] otherwise.
func ParseBound(s string) (Bound, error) {
	if s == "-" || s == "+" || s == "" {
		return Unbounded, nil
	}
	excl := strings.HasPrefix(s, "(")
	body := strings.TrimPrefix(s, "(")
	var e EntryID
	if len(body) == idLen && body[0] >= 'A' && body[0] <= 'Z' {
		id, err := ParseEventID(body)
		if err != nil {
			return Bound{}, err
		}
		e = id.EntryID()
	} else {
		var err error
		if e, err = ParseEntryID(body); err != nil {
			return Bound{}, &IDError{Input: s, Reason: `bound must be "-", "+", an entry id, an EVT id, optionally after "("`}
		}
	}
	return Bound{set: true, excl: excl, id: e}, nil
}

// Range is a span of a stream between two bounds. The zero Range is the
// whole stream.
type Range struct {
	From, To Bound
	err      error // set by constructors that were given an inverted span
}

// All is the whole stream.
var All = Range{}

// Window is the closed time window [t0, t1]: every entry minted in a
// millisecond from t0's to t1's, both included. Reads refuse it with an
// [*RangeError] when t1 is before t0.
func Window(t0, t1 time.Time) Range {
	r := Range{From: Inclusive(Floor(t0)), To: Inclusive(Ceil(t1))}
	if t1.Before(t0) {
		r.err = &RangeError{From: t0.UTC().Format(time.RFC3339Nano), To: t1.UTC().Format(time.RFC3339Nano)}
	}
	return r
}

// Since is the half-open time window [t0, ∞).
func Since(t0 time.Time) Range { return Range{From: Inclusive(Floor(t0))} }

// Between is the closed range of entries from a to b, both EVT ids.
func Between(a, b ID) Range { return Range{From: At(a), To: At(b)} }

// Span is the range between two bounds.
func Span(from, to Bound) Range { return Range{From: from, To: to} }

// Validate returns a [*RangeError] when the lower bound lies above the upper
// bound, or when a bound excludes everything on its side: an exclusive
// lower bound at the largest entry id, an exclusive upper bound at 0-0
// (the engine refuses both).
func (r Range) Validate() error {
	if r.err != nil {
		return r.err
	}
	if r.From.set && r.From.excl {
		if _, ok := r.From.id.Next(); !ok {
			return &RangeError{From: r.From.lower(), To: r.To.upper(), Reason: "no entry id lies above the largest one"}
		}
	}
	if r.To.set && r.To.excl && r.To.id == (EntryID{}) {
		return &RangeError{From: r.From.lower(), To: r.To.upper(), Reason: "no entry id lies below 0-0"}
	}
	if !r.From.set || !r.To.set {
		return nil
	}
	if r.From.id.Compare(r.To.id) > 0 {
		return &RangeError{From: r.From.lower(), To: r.To.upper()}
	}
	return nil
}

// Contains reports whether the entry id e lies in the range.
func (r Range) Contains(e EntryID) bool {
	if r.From.set {
		c := e.Compare(r.From.id)
		if c < 0 || c == 0 && r.From.excl {
			return false
		}
	}
	if r.To.set {
		c := e.Compare(r.To.id)
		if c > 0 || c == 0 && r.To.excl {
			return false
		}
	}
	return true
}
