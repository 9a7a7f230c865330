package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq"
)

// timeHelp lists the accepted time forms in error messages.
const timeHelp = `RFC3339 (2024-06-01T12:00:00Z), a date (2024-06-01), "now", or a duration relative to now (-1h, now-15m)`

// parseTime parses an absolute or relative time; relative times count from now.
func parseTime(s string, now time.Time) (time.Time, error) {
	rel, isRel := strings.CutPrefix(s, "now")
	if isRel && rel == "" {
		return now, nil
	}
	if !isRel && (strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+")) {
		rel, isRel = s, true
	}
	if isRel && (strings.HasPrefix(rel, "-") || strings.HasPrefix(rel, "+")) {
		if d, err := time.ParseDuration(rel); err == nil {
			return now.Add(d), nil
		}
	}
	if !isRel {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
			if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
				return t, nil
			}
		}
	}
	return time.Time{}, usagef("invalid time %q: want %s", s, timeHelp)
}

// parseBound parses a read bound: "-", "+", an entry id, an EVT id or a time,
// each optionally after "(" for an exclusive bound. A time rounds outward to
// whole milliseconds: as a lower bound it starts at the millisecond's first
// entry id, as an upper bound it ends at its last; "(" excludes that
// millisecond altogether.
func parseBound(s string, lower bool, now time.Time) (echomq.Bound, error) {
	b, err := echomq.ParseBound(s)
	if err == nil {
		return b, nil
	}
	body, excl := strings.CutPrefix(s, "(")
	if len(body) == idLen && body[0] >= 'A' && body[0] <= 'Z' {
		return echomq.Bound{}, err // shaped like a branded id: say what is wrong with it
	}
	t, terr := parseTime(body, now)
	if terr != nil || body == "" {
		return echomq.Bound{}, usagef(`invalid bound %q: want "-", "+", an entry id <ms>-<seq>, an EVT id or a time, optionally after "(" to exclude it`, s)
	}
	switch {
	case lower && !excl:
		return echomq.Inclusive(echomq.Floor(t)), nil
	case lower:
		return echomq.Exclusive(echomq.Ceil(t)), nil
	case !excl:
		return echomq.Inclusive(echomq.Ceil(t)), nil
	default:
		return echomq.Exclusive(echomq.Floor(t)), nil
	}
}

// parseMinID parses the --minid of trim: an entry id, an EVT id (its entry)
// or a time (the first entry id of its millisecond).
func parseMinID(s string, now time.Time) (echomq.EntryID, error) {
	if e, err := echomq.ParseEntryID(s); err == nil {
		return e, nil
	}
	if len(s) == idLen && s[0] >= 'A' && s[0] <= 'Z' {
		id, err := echomq.ParseEventID(s)
		if err != nil {
			return echomq.EntryID{}, err
		}
		return id.EntryID(), nil
	}
	t, err := parseTime(s, now)
	if err != nil {
		return echomq.EntryID{}, usagef("invalid --minid %q: want an entry id <ms>-<seq>, an EVT id or a time", s)
	}
	return echomq.Floor(t), nil
}

// parseFields turns name=value arguments into a payload; the value is
// everything after the first "=". It returns a usage error for an argument
// without "=" or with an empty name, and the library's [*echomq.FieldError]
// for the reserved name "id".
func parseFields(args []string) (echomq.Fields, error) {
	f := make(echomq.Fields, 0, 2*len(args))
	for _, arg := range args {
		name, value, ok := strings.Cut(arg, "=")
		if !ok {
			return nil, usagef("invalid field %q: want name=value", arg)
		}
		if name == "" {
			return nil, usagef("invalid field %q: empty name", arg)
		}
		f = append(f, name, value)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// parseCount parses a non-negative count flag value already read by pflag.
func checkCount(flag string, n int) error { //nolint:unparam // names the flag it checks; every command's is --count today
	if n < 0 {
		return usagef("invalid --%s %d: must not be negative", flag, n)
	}
	return nil
}

// parseSnowflake parses a decimal snowflake 0..2^63-1.
func parseSnowflake(s string) (echomq.Snowflake, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return 0, usagef("invalid snowflake %q: want a decimal integer 0..9223372036854775807", s)
	}
	return echomq.Snowflake(n), nil
}

// parseStart parses a --start flag: "new" or "head"; anything else is an
// [*echomq.ArgumentError].
func parseStart(s string) (echomq.Start, error) {
	switch s {
	case "new":
		return echomq.StartNew, nil
	case "head":
		return echomq.StartHead, nil
	}
	return 0, &echomq.ArgumentError{Name: "start", Reason: fmt.Sprintf("%q: want new or head", s)}
}

const (
	// idLen is the length of an echomq.ID's text.
	idLen = 14
	// maxNode is the largest node id (echomq.Config.NodeID): 10 bits.
	maxNode = 1023
)
