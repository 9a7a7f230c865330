package echomq

import (
	"strconv"
	"time"
)

// EntryID is a stream entry id "<ms>-<seq>" as the engine orders it: by the
// integer pair, never by the string. An EVT id maps onto one with
// [ID.EntryID]: Ms is the real Unix millisecond of its mint instant and Seq the
// 22-bit node|seq tail.
type EntryID struct {
	Ms  uint64
	Seq uint64
}

// Floor returns the smallest entry id at t's millisecond, "<ms>-0": the
// inclusive lower bound of a time window.
func Floor(t time.Time) EntryID { return EntryID{Ms: unixMs(t)} }

// Ceil returns the largest entry id an EVT id minted at t's millisecond can
// map to, "<ms>-4194303": the inclusive upper bound of a time window.
func Ceil(t time.Time) EntryID { return EntryID{Ms: unixMs(t), Seq: maxTail} }

func unixMs(t time.Time) uint64 {
	ms := t.UnixMilli()
	if ms < 0 {
		return 0
	}
	return uint64(ms)
}

// ParseEntryID parses "<ms>-<seq>" (both unsigned 64-bit decimals) or a
// bare "<ms>" (seq 0). It returns an [*IDError] (matching [ErrMalformedID])
// otherwise.
func ParseEntryID(s string) (EntryID, error) {
	// Hand-rolled: every read decodes one entry id per event, and this is a
	// few times cheaper than strings.Cut plus two strconv.ParseUint calls.
	ms, rest, ok := parseUint(s)
	if !ok {
		return EntryID{}, &IDError{Input: s, Reason: "entry id must be <ms>-<seq>"}
	}
	if rest == "" {
		return EntryID{Ms: ms}, nil
	}
	if rest[0] != '-' {
		return EntryID{}, &IDError{Input: s, Reason: "entry id must be <ms>-<seq>"}
	}
	seq, rest, ok := parseUint(rest[1:])
	if !ok || rest != "" {
		return EntryID{}, &IDError{Input: s, Reason: "entry id must be <ms>-<seq>"}
	}
	return EntryID{Ms: ms, Seq: seq}, nil
}

// parseUint reads the leading decimal digits of s as a uint64 and returns
// the rest; false when there is no digit or the value overflows.
func parseUint(s string) (n uint64, rest string, ok bool) {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			break
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, s, false
		}
		n = n*10 + d
	}
	return n, s[i:], i > 0
}

// String returns "<ms>-<seq>".
func (e EntryID) String() string {
	var b [41]byte
	return string(e.appendTo(b[:0]))
}

// AppendTo appends "<ms>-<seq>" to b.
func (e EntryID) appendTo(b []byte) []byte {
	b = strconv.AppendUint(b, e.Ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, e.Seq, 10)
}

// Compare orders entry ids as integer pairs, the engine's order.
func (e EntryID) Compare(o EntryID) int {
	switch {
	case e.Ms < o.Ms:
		return -1
	case e.Ms > o.Ms:
		return 1
	case e.Seq < o.Seq:
		return -1
	case e.Seq > o.Seq:
		return 1
	}
	return 0
}

// Next returns the smallest entry id above e (the exclusive successor), and
// false when e is the largest entry id.
func (e EntryID) Next() (EntryID, bool) {
	if e.Seq < ^uint64(0) {
		return EntryID{Ms: e.Ms, Seq: e.Seq + 1}, true
	}
	if e.Ms < ^uint64(0) {
		return EntryID{Ms: e.Ms + 1}, true
	}
	return e, false
}

// Time returns the entry's millisecond as a UTC time.
func (e EntryID) Time() time.Time { return time.UnixMilli(int64(e.Ms)).UTC() }

// Snowflake returns the snowflake an EVT id must have to map onto e, and
// false when e is not the image of any snowflake (before 2024-01-01 UTC, past the
// 41-bit range, or a sequence above the 22-bit tail).
func (e EntryID) Snowflake() (Snowflake, bool) {
	if e.Ms < uint64(epoch) || e.Seq > maxTail || e.Ms-uint64(epoch) > maxTS {
		return 0, false
	}
	return Snowflake(int64(e.Ms-uint64(epoch))<<tailBits | int64(e.Seq)), true
}
