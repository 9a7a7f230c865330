package projection

import (
	"strings"
	"time"

	"github.com/echomq/echomq"
)

// ParseWindow reads a window from text, as a command line gives it:
//
//	all
//	last:1h                      (a Go duration)
//	since:2026-01-02T15:04:05Z   (RFC 3339)
//	between:<RFC 3339>,<RFC 3339>
//	ids:<bound>,<bound>          (as echomq.ParseBound: -, +, ms-seq, an EVT id, "(" for exclusive)
//
// It returns an [*echomq.ArgumentError] for text in none of these forms, an
// [*echomq.IDError] for a bad bound, and an [*echomq.RangeError] for an
// inverted window.
func ParseWindow(s string) (Window, error) {
	kind, arg, _ := strings.Cut(strings.TrimSpace(s), ":")
	var w Window
	switch kind {
	case "all", "":
		if arg != "" {
			return Window{}, argError("window", `"all" takes no argument`)
		}
		return All, nil
	case "last":
		d, err := time.ParseDuration(arg)
		if err != nil {
			return Window{}, argError("window", "last: "+err.Error())
		}
		w = Last(d)
	case "since":
		t, err := time.Parse(time.RFC3339Nano, arg)
		if err != nil {
			return Window{}, argError("window", "since: want an RFC 3339 time: "+err.Error())
		}
		w = Since(t)
	case "between":
		a, b, ok := strings.Cut(arg, ",")
		t0, err0 := time.Parse(time.RFC3339Nano, a)
		t1, err1 := time.Parse(time.RFC3339Nano, b)
		if !ok || err0 != nil || err1 != nil {
			return Window{}, argError("window", "between: want <RFC 3339>,<RFC 3339>")
		}
		w = Between(t0, t1)
	case "ids":
		a, b, ok := strings.Cut(arg, ",")
		if !ok {
			return Window{}, argError("window", "ids: want <bound>,<bound>")
		}
		from, err := echomq.ParseBound(a)
		if err != nil {
			return Window{}, err
		}
		to, err := echomq.ParseBound(b)
		if err != nil {
			return Window{}, err
		}
		w = IDs(echomq.Span(from, to))
	default:
		return Window{}, argError("window", "unknown form "+quote(kind)+": want all, last:, since:, between: or ids:")
	}
	if _, err := w.Resolve(time.Now()); err != nil {
		return Window{}, err
	}
	return w, nil
}
