package projection

import (
	"cmp"
	"slices"
)

// Counts is the state of [Count] and [CountBy].
type Counts struct {
	// By is the field counted per value; "" for a plain count.
	By string `json:"by,omitempty"`
	// Total counts every event.
	Total int64 `json:"total"`
	// Per counts the events per value of By.
	Per map[string]int64 `json:"per"`
	// Missing counts the events that have no field By.
	Missing int64 `json:"missing"`
}

// Count counts the events: "how many rooms opened".
func Count() Projection[*Counts] {
	return Projection[*Counts]{
		Name:    "count",
		Version: 1,
		Init:    func() *Counts { return &Counts{} },
		Apply:   func(c *Counts, _ Event) *Counts { c.Total++; return c },
	}
}

// CountBy counts the events per value of the field by ("guesses per room"),
// and in total; events without the field count in Missing.
func CountBy(by string) Projection[*Counts] {
	p := Projection[*Counts]{
		Name:    "count,by=" + by,
		Version: 1,
		Init:    func() *Counts { return &Counts{By: by, Per: map[string]int64{}} },
		Apply: func(c *Counts, ev Event) *Counts {
			c.Total++
			v, ok := ev.Fields.Get(by)
			if !ok {
				c.Missing++
				return c
			}
			if c.Per == nil {
				c.Per = map[string]int64{}
			}
			c.Per[v]++
			return c
		},
	}
	if by == "" {
		p.err = argError("count by", "the field name must not be empty")
	}
	return p
}

// Columns returns ["count"], or [by, "count"] for a count per value.
func (c *Counts) Columns() []string {
	if c.By == "" {
		return []string{"count"}
	}
	return []string{c.By, "count"}
}

// Rows returns the total, or one row per value, most frequent first (ties
// by value), then a row "(missing)" when events lacked the field.
func (c *Counts) Rows() [][]string {
	if c.By == "" {
		return [][]string{{formatInt(c.Total)}}
	}
	keys := make([]string, 0, len(c.Per))
	for k := range c.Per {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(c.Per[b], c.Per[a]), cmp.Compare(a, b))
	})
	rows := make([][]string, 0, len(keys)+1)
	for _, k := range keys {
		rows = append(rows, []string{k, formatInt(c.Per[k])})
	}
	if c.Missing > 0 {
		rows = append(rows, []string{"(missing)", formatInt(c.Missing)})
	}
	return rows
}
