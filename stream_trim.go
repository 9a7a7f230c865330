package echomq

import (
	"context"
	"strconv"
	"time"
)

// TrimSpec says what [Stream.Trim] removes: by length ([MaxLen]) or by age
// ([MinTime], [MinEntry]), approximately by default or exactly with
// [TrimSpec.Exact].
type TrimSpec struct {
	byLen  bool
	maxLen int64
	minID  EntryID
	exact  bool
}

// MaxLen keeps the newest n entries.
func MaxLen(n int64) TrimSpec { return TrimSpec{byLen: true, maxLen: n} }

// MinTime drops the entries minted before t's millisecond: MINID floor(t).
func MinTime(t time.Time) TrimSpec { return TrimSpec{minID: Floor(t)} }

// MinEntry drops the entries below e.
func MinEntry(e EntryID) TrimSpec { return TrimSpec{minID: e} }

// Exact makes the trim exact ("="). Without it the trim is approximate
// ("~"): the engine removes whole nodes only, so it may remove fewer entries
// than asked (often none on a small stream) but never more.
func (t TrimSpec) Exact() TrimSpec { t.exact = true; return t }

// IsExact reports whether the trim is exact.
func (t TrimSpec) IsExact() bool { return t.exact }

// String renders the XTRIM arguments, e.g. "MAXLEN = 3".
func (t TrimSpec) String() string {
	op := "~"
	if t.exact {
		op = "="
	}
	if t.byLen {
		return "MAXLEN " + op + " " + strconv.FormatInt(t.maxLen, 10)
	}
	return "MINID " + op + " " + t.minID.String()
}

// Trim removes entries from the old end of the stream and returns how many
// it removed. A negative length returns an [*ArgumentError] before any I/O.
// Trimming a missing stream removes nothing.
func (s *Stream) Trim(ctx context.Context, t TrimSpec) (int64, error) {
	if err := s.ready(ctx); err != nil {
		return 0, opError("trim", s.key, err)
	}
	var n int64
	var err error
	if t.byLen {
		if t.maxLen < 0 {
			return 0, opError("trim", s.key, &ArgumentError{Name: "max length", Reason: "must not be negative"})
		}
		n, err = s.c.conn.XTrim(ctx, s.key, "MAXLEN", t.exact, strconv.FormatInt(t.maxLen, 10))
	} else {
		n, err = s.c.conn.XTrim(ctx, s.key, "MINID", t.exact, t.minID.String())
	}
	return n, opError("trim", s.key, err)
}
