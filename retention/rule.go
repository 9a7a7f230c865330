package retention

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq"
)

// Kind is what a [Rule] keeps.
type Kind uint8

// The kinds of rule.
const (
	// KindMaxLen keeps the newest n entries.
	KindMaxLen Kind = iota + 1
	// KindMinTime drops the entries minted before a fixed instant.
	KindMinTime
	// KindAgo drops the entries minted more than an age before now.
	KindAgo
)

// Rule is what a policy keeps: the newest n entries ([MaxLen]), the entries
// minted at or after an instant ([MinTime]) or within an age of now
// ([Ago]). A rule is approximate unless made [Rule.Exact]. The zero Rule is
// invalid.
type Rule struct {
	kind  Kind
	n     int64
	t     time.Time
	d     time.Duration
	exact bool
}

// MaxLen keeps the newest n entries (XTRIM MAXLEN n).
func MaxLen(n int64) Rule { return Rule{kind: KindMaxLen, n: n} }

// MinTime drops the entries minted before t's millisecond (XTRIM MINID
// floor(t)).
func MinTime(t time.Time) Rule { return Rule{kind: KindMinTime, t: t} }

// Ago drops the entries minted more than d before now, now read when the
// rule is applied (XTRIM MINID floor(now-d)).
func Ago(d time.Duration) Rule { return Rule{kind: KindAgo, d: d} }

// Exact makes the trim exact ("="). Without it the trim is approximate
// ("~"): the engine removes whole nodes only, so it may keep more entries
// than the rule says (often all of a small stream), never fewer.
func (r Rule) Exact() Rule { r.exact = true; return r }

// IsExact reports whether the rule trims exactly.
func (r Rule) IsExact() bool { return r.exact }

// Kind returns the rule's kind; 0 for the zero Rule.
func (r Rule) Kind() Kind { return r.kind }

// Len returns the length a [KindMaxLen] rule keeps.
func (r Rule) Len() int64 { return r.n }

// Time returns the instant of a [KindMinTime] rule.
func (r Rule) Time() time.Time { return r.t }

// Age returns the age of a [KindAgo] rule.
func (r Rule) Age() time.Duration { return r.d }

// Validate returns an [*echomq.ArgumentError] for the zero Rule, a negative
// length, a negative age, or an instant before the Unix epoch.
func (r Rule) Validate() error {
	switch r.kind {
	case KindMaxLen:
		if r.n < 0 {
			return &echomq.ArgumentError{Name: "retention rule", Reason: "maxlen " + strconv.FormatInt(r.n, 10) + ": the length must not be negative"}
		}
	case KindMinTime:
		if r.t.UnixMilli() < 0 {
			return &echomq.ArgumentError{Name: "retention rule", Reason: "minid " + r.t.UTC().Format(time.RFC3339Nano) + ": the instant must not be before 1970"}
		}
	case KindAgo:
		if r.d < 0 {
			return &echomq.ArgumentError{Name: "retention rule", Reason: "ago " + r.d.String() + ": the age must not be negative"}
		}
	default:
		return &echomq.ArgumentError{Name: "retention rule", Reason: "empty rule: use MaxLen, MinTime or Ago"}
	}
	return nil
}

// Horizon returns, for a time rule, the first entry id the rule keeps when
// the clock reads now: floor(t) or floor(now-d); false for a length rule.
func (r Rule) Horizon(now time.Time) (echomq.EntryID, bool) {
	switch r.kind {
	case KindMinTime:
		return echomq.Floor(r.t), true
	case KindAgo:
		return echomq.Floor(now.Add(-r.d)), true
	default:
		return echomq.EntryID{}, false
	}
}

// Spec resolves the rule into the trim it makes when the clock reads now.
// It returns the error of [Rule.Validate].
func (r Rule) Spec(now time.Time) (echomq.TrimSpec, error) {
	if err := r.Validate(); err != nil {
		return echomq.TrimSpec{}, err
	}
	var s echomq.TrimSpec
	if r.kind == KindMaxLen {
		s = echomq.MaxLen(r.n)
	} else {
		h, _ := r.Horizon(now)
		s = echomq.MinEntry(h)
	}
	if r.exact {
		s = s.Exact()
	}
	return s, nil
}

// String renders the rule in the form [ParseRule] reads: "maxlen 1000",
// "minid 2026-05-01T00:00:00Z", "ago 72h0m0s", with " exact" appended for
// an exact rule.
func (r Rule) String() string {
	var s string
	switch r.kind {
	case KindMaxLen:
		s = "maxlen " + strconv.FormatInt(r.n, 10)
	case KindMinTime:
		s = "minid " + r.t.UTC().Format(time.RFC3339Nano)
	case KindAgo:
		s = "ago " + r.d.String()
	default:
		return "invalid"
	}
	if r.exact {
		s += " exact"
	}
	return s
}

// ParseRule parses "maxlen <n>", "minid <RFC 3339 instant>" or
// "ago <duration>" (a Go duration, or a whole number of days such as
// "7d"), optionally followed by "exact" or "approx" (the default). It
// returns an [*echomq.ArgumentError] naming what is wrong.
func ParseRule(s string) (Rule, error) {
	words := strings.Fields(s)
	bad := func(reason string) (Rule, error) {
		return Rule{}, &echomq.ArgumentError{Name: "retention rule", Reason: fmt.Sprintf("%q: %s", s, reason)}
	}
	if len(words) < 2 || len(words) > 3 {
		return bad(`want "maxlen <n>", "minid <instant>" or "ago <duration>", optionally followed by "exact"`)
	}
	var r Rule
	switch strings.ToLower(words[0]) {
	case "maxlen":
		n, err := strconv.ParseInt(words[1], 10, 64)
		if err != nil {
			return bad("the length is not an integer")
		}
		r = MaxLen(n)
	case "minid":
		t, err := time.Parse(time.RFC3339Nano, words[1])
		if err != nil {
			return bad("the instant is not RFC 3339 (2026-05-01T00:00:00Z)")
		}
		r = MinTime(t)
	case "ago":
		d, err := parseAge(words[1])
		if err != nil {
			return bad("the age is not a duration (90s, 36h, 7d)")
		}
		r = Ago(d)
	default:
		return bad(`the kind must be "maxlen", "minid" or "ago"`)
	}
	if len(words) == 3 {
		switch strings.ToLower(words[2]) {
		case "exact", "=":
			r = r.Exact()
		case "approx", "~":
		default:
			return bad(`the mode must be "exact" or "approx"`)
		}
	}
	if err := r.Validate(); err != nil {
		return Rule{}, err
	}
	return r, nil
}

// parseAge reads a Go duration or "<n>d" days.
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n > int64(1<<63-1)/int64(24*time.Hour) || n < -int64(1<<63-1)/int64(24*time.Hour) {
			return 0, fmt.Errorf("bad days %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}
