package dashboard

import (
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq"
)

// timeLayouts are the instants a bound may be written as, besides entry
// and EVT ids: RFC 3339, and what an <input type="datetime-local"> sends
// (read as UTC).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

// parseBound reads one end of a window: "" or "-"/"+" (open), "now", a
// duration before now ("-15m", "now-1h"), an instant (timeLayouts), or
// what echomq.ParseBound reads (an entry id or EVT id, "(" to exclude
// it). An instant covers whole milliseconds: as the upper end (upper true)
// it takes the millisecond's last entry id.
func parseBound(field, s string, now time.Time, upper bool) (echomq.Bound, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return echomq.Unbounded, nil
	}
	if t, ok, err := parseInstant(s, now); err != nil {
		return echomq.Unbounded, badInput(field, s, err.Error())
	} else if ok {
		if upper {
			return echomq.Inclusive(echomq.Ceil(t)), nil
		}
		return echomq.Inclusive(echomq.Floor(t)), nil
	}
	b, err := echomq.ParseBound(s)
	if err != nil {
		return echomq.Unbounded, badInput(field, s, "want a time (2026-01-02T15:04:05Z, -15m, now), an entry id (<ms>-<seq>) or an EVT id")
	}
	return b, nil
}

// parseInstant reads the time forms of parseBound; ok is false for text
// that is not one (an id, maybe).
func parseInstant(s string, now time.Time) (time.Time, bool, error) {
	rel, isNow := strings.CutPrefix(s, "now")
	if isNow && rel == "" {
		return now, true, nil
	}
	if !isNow {
		rel = s
	}
	if len(rel) > 1 && rel[0] == '-' && rel[1] >= '0' && rel[1] <= '9' {
		d, err := time.ParseDuration(rel[1:])
		if err != nil {
			return time.Time{}, false, errDuration
		}
		if t := now.Add(-d); t.UnixMilli() >= 0 {
			return t, true, nil
		}
		return time.Time{}, false, errBeforeEpoch
	}
	if isNow {
		return time.Time{}, false, errRelative
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			if t.UnixMilli() < 0 {
				return time.Time{}, false, errBeforeEpoch
			}
			return t, true, nil
		}
	}
	return time.Time{}, false, nil
}

type inputReason string

func (r inputReason) Error() string { return string(r) }

const (
	errDuration    inputReason = "want a duration before now like -15m, -1h30m or -90s"
	errRelative    inputReason = `want "now" or "now-<duration>" (now-15m)`
	errBeforeEpoch inputReason = "an instant before 1970 names no entry"
)

// parseEntry reads a paging cursor: an entry id, "" for none.
func parseEntry(field, s string) (echomq.EntryID, bool, error) {
	if s == "" {
		return echomq.EntryID{}, false, nil
	}
	e, err := echomq.ParseEntryID(s)
	if err != nil {
		return echomq.EntryID{}, false, badInput(field, s, "want an entry id <ms>-<seq>")
	}
	return e, true, nil
}

// parseCount reads a page size: "" is def, else 1..MaxPageSize.
func parseCount(field, s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxPageSize {
		return 0, badInput(field, s, "want a whole number from 1 to "+strconv.Itoa(MaxPageSize))
	}
	return n, nil
}

// parseEventID reads a dead letter's id: an EVT id.
func parseEventID(field, s string) (echomq.ID, error) {
	if s == "" {
		return echomq.ID{}, badInput(field, "", "missing")
	}
	id, err := echomq.ParseEventID(s)
	if err != nil {
		return echomq.ID{}, badInput(field, s, "want an EVT id (14 characters, like EVT0Dqulb8QcyG)")
	}
	return id, nil
}
