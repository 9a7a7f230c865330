package echomq

import (
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
	force  bool
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

// Force lets the trim run on a stream under archive control (one with an
// archive watermark, or an archiver's lease), which [Stream.Trim] refuses
// otherwise: the entries it removes above the watermark were never
// archived and are destroyed; [TrimResult.Unarchived] counts them.
func (t TrimSpec) Force() TrimSpec { t.force = true; return t }

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
