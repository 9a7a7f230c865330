package projection

import (
	"cmp"
	"slices"

	"github.com/echomq/echomq"
)

// Ranking is the state of [Top] and [TopBy].
type Ranking struct {
	// Field is the numeric field ranked by.
	Field string `json:"field"`
	// By is the grouping field of TopBy; "" for Top.
	By string `json:"by,omitempty"`
	// N is how many entries the ranking keeps.
	N int `json:"n"`
	// Events are Top's best events, best first.
	Events []Ranked `json:"events,omitempty"`
	// Totals are TopBy's sums per group (all groups: a group's rank can
	// change with every event).
	Totals map[string]float64 `json:"totals,omitempty"`
	// Skipped counts the events whose Field was missing or not a number.
	Skipped int64 `json:"skipped"`
}

// Ranked is one event of a [Ranking].
type Ranked struct {
	Value  float64        `json:"value"`
	ID     string         `json:"id"`
	Entry  echomq.EntryID `json:"entry"`
	Stream string         `json:"stream"`
}

// better orders ranked events: higher value, then older entry, then stream
// name, a total order, so the top is the same in any fold order.
func (r Ranked) better(o Ranked) int {
	return cmp.Or(cmp.Compare(o.Value, r.Value), r.Entry.Compare(o.Entry), cmp.Compare(r.Stream, o.Stream))
}

// Top keeps the n events with the highest value of the numeric field
// ("the best guesses"), best first; equal values rank the older event first.
// An n below 1 is refused with an [*echomq.ArgumentError].
func Top(field string, n int) Projection[*Ranking] {
	p := Projection[*Ranking]{
		Name:    "top,field=" + field + ",n=" + itoa(n),
		Version: 1,
		Init:    func() *Ranking { return &Ranking{Field: field, N: n} },
		Apply: func(r *Ranking, ev Event) *Ranking {
			v, ok := parseNumber(ev.Fields.Value(field))
			if !ok {
				r.Skipped++
				return r
			}
			e := Ranked{Value: v, ID: ev.ID.String(), Entry: ev.Entry, Stream: ev.Stream}
			if len(r.Events) == r.N && e.better(r.Events[len(r.Events)-1]) >= 0 {
				return r
			}
			i, _ := slices.BinarySearchFunc(r.Events, e, Ranked.better)
			r.Events = slices.Insert(r.Events, i, e)
			if len(r.Events) > r.N {
				r.Events = r.Events[:r.N]
			}
			return r
		},
	}
	p.err = checkTop(field, n)
	return p
}

// TopBy ranks the values of the field by the sum of the numeric field
// ("the leaderboard: players by points") and shows the n best. An n below 1
// is refused with an [*echomq.ArgumentError].
func TopBy(field, by string, n int) Projection[*Ranking] {
	p := Projection[*Ranking]{
		Name:    "top,field=" + field + ",by=" + by + ",n=" + itoa(n),
		Version: 1,
		Init:    func() *Ranking { return &Ranking{Field: field, By: by, N: n, Totals: map[string]float64{}} },
		Apply: func(r *Ranking, ev Event) *Ranking {
			v, ok := parseNumber(ev.Fields.Value(field))
			if !ok {
				r.Skipped++
				return r
			}
			if r.Totals == nil {
				r.Totals = map[string]float64{}
			}
			r.Totals[ev.Fields.Value(by)] += v
			return r
		},
	}
	p.err = checkTop(field, n)
	if p.err == nil && by == "" {
		p.err = argError("top by", "the grouping field name must not be empty")
	}
	return p
}

func checkTop(field string, n int) error {
	if field == "" {
		return argError("top", "the numeric field name must not be empty")
	}
	if n < 1 {
		return argError("top", "n must be at least 1, got "+itoa(n))
	}
	return nil
}

// Columns returns ["rank", "id", "time", field] for Top and
// ["rank", by, field] for TopBy.
func (r *Ranking) Columns() []string {
	if r.By == "" {
		return []string{"rank", "id", "time", r.Field}
	}
	return []string{"rank", r.By, r.Field}
}

// Rows returns the best n, best first (TopBy: highest total, ties by value).
func (r *Ranking) Rows() [][]string {
	var rows [][]string
	if r.By == "" {
		for i, e := range r.Events {
			rows = append(rows, []string{itoa(i + 1), e.ID, e.Entry.Time().Format("2006-01-02T15:04:05.000Z07:00"), formatNumber(e.Value)})
		}
		return rows
	}
	keys := make([]string, 0, len(r.Totals))
	for k := range r.Totals {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(r.Totals[b], r.Totals[a]), cmp.Compare(a, b))
	})
	for i, k := range keys[:min(len(keys), r.N)] {
		rows = append(rows, []string{itoa(i + 1), k, formatNumber(r.Totals[k])})
	}
	return rows
}
