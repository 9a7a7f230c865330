package projection

import (
	"strconv"
	"strings"
	"time"
)

// Spec names a ready-made fold and its arguments, so one can be chosen at
// run time (a command line, a query string). Its text form, read by
// [ParseSpec] and written by [Spec.String], is the fold's name followed by
// comma-separated name=value arguments:
//
//	count                        Count
//	count,by=room                CountBy("room")
//	sum,field=points             Sum("points") (also min, max, avg)
//	sum,field=points,by=player   Stats("points", "player") showing the sum
//	stats,field=points[,by=…]    Stats: count, sum, min, max, avg
//	buckets,every=hour           CountPer(time.Hour) (minute, hour, day or a Go duration)
//	latest,by=room               Latest("room")
//	top,field=points,n=10        Top("points", 10)
//	top,field=points,by=player,n=10   TopBy("points", "player", 10)
//	distinct,field=player        Distinct("player")
//
// Values cannot contain a comma.
type Spec struct {
	Fold  string        // count, sum, min, max, avg, stats, buckets, latest, top, distinct
	Field string        // the measured field
	By    string        // the grouping or key field
	Every time.Duration // the bucket width
	N     int           // how many a top keeps
}

// ParseSpec reads a [Spec] from its text form and checks it. It returns an
// [*echomq.ArgumentError] naming what is wrong.
func ParseSpec(s string) (Spec, error) {
	parts := strings.Split(strings.TrimSpace(s), ",")
	sp := Spec{Fold: strings.TrimSpace(parts[0])}
	seen := map[string]bool{}
	for _, kv := range parts[1:] {
		name, val, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok || val == "" {
			return Spec{}, argError("fold spec", quote(kv)+" is not name=value")
		}
		if seen[name] {
			return Spec{}, argError("fold spec", name+" given twice")
		}
		seen[name] = true
		switch name {
		case "field":
			sp.Field = val
		case "by":
			sp.By = val
		case "every":
			d, err := parseEvery(val)
			if err != nil {
				return Spec{}, err
			}
			sp.Every = d
		case "n":
			n, err := strconv.Atoi(val)
			if err != nil {
				return Spec{}, argError("fold spec", "n="+val+" is not a number")
			}
			sp.N = n
		default:
			return Spec{}, argError("fold spec", "unknown argument "+quote(name)+": want field, by, every or n")
		}
	}
	if _, err := sp.Projection(); err != nil {
		return Spec{}, err
	}
	return sp, nil
}

func parseEvery(s string) (time.Duration, error) {
	switch s {
	case "minute":
		return time.Minute, nil
	case "hour":
		return time.Hour, nil
	case "day":
		return 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, argError("fold spec", "every="+s+": want minute, hour, day or a duration")
	}
	return d, nil
}

// String returns the text form [ParseSpec] reads.
func (s Spec) String() string {
	var sb strings.Builder
	sb.WriteString(s.Fold)
	if s.Field != "" {
		sb.WriteString(",field=" + s.Field)
	}
	if s.By != "" {
		sb.WriteString(",by=" + s.By)
	}
	if s.Every != 0 {
		sb.WriteString(",every=" + s.Every.String())
	}
	if s.N != 0 {
		sb.WriteString(",n=" + itoa(s.N))
	}
	return sb.String()
}

// Projection returns the ready-made fold the spec names, as a projection
// whose state is a [Table]. It returns an [*echomq.ArgumentError] for an
// unknown fold, a missing or superfluous argument, or a bad value.
func (s Spec) Projection() (Projection[Table], error) {
	need := func(field, by, every, n bool) error {
		for _, a := range []struct {
			name  string
			want  bool
			given bool
		}{{"field", field, s.Field != ""}, {"by", by, s.By != ""}, {"every", every, s.Every != 0}, {"n", n, s.N != 0}} {
			if a.given && !a.want {
				return argError("fold spec", s.Fold+" takes no "+a.name)
			}
		}
		return nil
	}
	if strings.ContainsRune(s.Field, ',') || strings.ContainsRune(s.By, ',') {
		return Projection[Table]{}, argError("fold spec", "field names cannot contain a comma")
	}
	var p Projection[Table]
	var err error
	switch s.Fold {
	case "count":
		if err = need(false, true, false, false); err == nil {
			p = AsTable(Count())
			if s.By != "" {
				p = AsTable(CountBy(s.By))
			}
		}
	case "sum", "min", "max", "avg", "stats":
		if err = need(true, true, false, false); err == nil {
			measure := s.Fold
			if measure == "stats" {
				measure = ""
			}
			p = AsTable(numbers(measure, s.Field, s.By))
		}
	case "buckets":
		if err = need(false, false, true, false); err == nil {
			p = AsTable(CountPer(s.Every))
		}
	case "latest":
		if err = need(false, true, false, false); err == nil {
			p = AsTable(Latest(s.By))
		}
	case "top":
		if err = need(true, true, false, true); err == nil {
			p = AsTable(Top(s.Field, s.N))
			if s.By != "" {
				p = AsTable(TopBy(s.Field, s.By, s.N))
			}
		}
	case "distinct":
		if err = need(true, false, false, false); err == nil {
			p = AsTable(Distinct(s.Field))
		}
	default:
		err = argError("fold spec", "unknown fold "+quote(s.Fold)+": want count, sum, min, max, avg, stats, buckets, latest, top or distinct")
	}
	if err == nil {
		err = p.Validate()
	}
	if err != nil {
		return Projection[Table]{}, err
	}
	return p, nil
}
