package projection

import (
	"slices"
)

// Numbers is the state of [Sum], [Min], [Max], [Avg] and [Stats]: count,
// sum, minimum and maximum of a numeric field, overall or per value of a
// grouping field. Values that are not finite numbers (or missing) are
// skipped and counted. Sums are float64: exact for integers up to 2^53.
type Numbers struct {
	// Measure is the measure the table shows: "sum", "min", "max", "avg",
	// or "" for all of them.
	Measure string `json:"measure,omitempty"`
	// Field is the numeric field.
	Field string `json:"field"`
	// By is the grouping field; "" groups everything under "".
	By string `json:"by,omitempty"`
	// Groups holds one aggregate per group.
	Groups map[string]*Agg `json:"groups"`
	// Skipped counts the events whose Field was missing or not a number.
	Skipped int64 `json:"skipped"`
}

// Agg is the aggregate of one group of [Numbers].
type Agg struct {
	Count int64   `json:"count"`
	Sum   float64 `json:"sum"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
}

// Avg returns the mean, 0 for an empty group.
func (a Agg) Avg() float64 {
	if a.Count == 0 {
		return 0
	}
	return a.Sum / float64(a.Count)
}

// Group returns the aggregate of a group (of "" when there is no By), the
// zero Agg when the group saw no number.
func (n *Numbers) Group(key string) Agg {
	if a := n.Groups[key]; a != nil {
		return *a
	}
	return Agg{}
}

// Sum adds up the numeric field over the events: "points scored".
func Sum(field string) Projection[*Numbers] { return numbers("sum", field, "") }

// Min keeps the smallest value of the numeric field.
func Min(field string) Projection[*Numbers] { return numbers("min", field, "") }

// Max keeps the largest value of the numeric field.
func Max(field string) Projection[*Numbers] { return numbers("max", field, "") }

// Avg averages the numeric field.
func Avg(field string) Projection[*Numbers] { return numbers("avg", field, "") }

// Stats keeps count, sum, min, max (and so the average) of the numeric
// field, per value of the field by ("points per player"), or overall when by
// is "".
func Stats(field, by string) Projection[*Numbers] { return numbers("", field, by) }

func numbers(measure, field, by string) Projection[*Numbers] {
	name := measure
	if name == "" {
		name = "stats"
	}
	name += ",field=" + field
	if by != "" {
		name += ",by=" + by
	}
	p := Projection[*Numbers]{
		Name:    name,
		Version: 1,
		Init: func() *Numbers {
			return &Numbers{Measure: measure, Field: field, By: by, Groups: map[string]*Agg{}}
		},
		Apply: func(n *Numbers, ev Event) *Numbers {
			v, ok := parseNumber(ev.Fields.Value(field))
			if !ok {
				n.Skipped++
				return n
			}
			key := ""
			if by != "" {
				key = ev.Fields.Value(by)
			}
			if n.Groups == nil {
				n.Groups = map[string]*Agg{}
			}
			a := n.Groups[key]
			if a == nil {
				a = &Agg{Min: v, Max: v}
				n.Groups[key] = a
			}
			a.Count++
			a.Sum += v
			a.Min = min(a.Min, v)
			a.Max = max(a.Max, v)
			return n
		},
	}
	if field == "" {
		p.err = argError(name, "the numeric field name must not be empty")
	}
	return p
}

func (n *Numbers) measures() []string {
	if n.Measure == "" {
		return []string{"count", "sum", "min", "max", "avg"}
	}
	return []string{n.Measure}
}

// Columns returns the measures, after the grouping field when there is one.
func (n *Numbers) Columns() []string {
	if n.By == "" {
		return n.measures()
	}
	return append([]string{n.By}, n.measures()...)
}

// Rows returns one row, or one row per group in value order. Min, max and
// avg of a group without numbers render as "-".
func (n *Numbers) Rows() [][]string {
	row := func(a Agg) []string {
		var r []string
		for _, m := range n.measures() {
			switch {
			case m == "count":
				r = append(r, formatInt(a.Count))
			case m == "sum":
				r = append(r, formatNumber(a.Sum))
			case a.Count == 0:
				r = append(r, "-")
			case m == "min":
				r = append(r, formatNumber(a.Min))
			case m == "max":
				r = append(r, formatNumber(a.Max))
			default:
				r = append(r, formatNumber(a.Avg()))
			}
		}
		return r
	}
	if n.By == "" {
		return [][]string{row(n.Group(""))}
	}
	keys := make([]string, 0, len(n.Groups))
	for k := range n.Groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([][]string, len(keys))
	for i, k := range keys {
		rows[i] = append([]string{k}, row(*n.Groups[k])...)
	}
	return rows
}
