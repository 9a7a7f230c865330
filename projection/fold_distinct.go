package projection

import (
	"slices"
)

// Set is the state of [Distinct]: the distinct values of a field.
type Set struct {
	// Field is the field whose values are collected.
	Field string `json:"field"`
	// Values holds each distinct value once.
	Values map[string]struct{} `json:"values"`
	// Missing counts the events without the field.
	Missing int64 `json:"missing"`
}

// Distinct collects the distinct values of the field ("which players
// played").
func Distinct(field string) Projection[*Set] {
	p := Projection[*Set]{
		Name:    "distinct,field=" + field,
		Version: 1,
		Init:    func() *Set { return &Set{Field: field, Values: map[string]struct{}{}} },
		Apply: func(s *Set, ev Event) *Set {
			v, ok := ev.Fields.Get(field)
			if !ok {
				s.Missing++
				return s
			}
			if s.Values == nil {
				s.Values = map[string]struct{}{}
			}
			s.Values[v] = struct{}{}
			return s
		},
	}
	if field == "" {
		p.err = argError("distinct", "the field name must not be empty")
	}
	return p
}

// Len returns the number of distinct values.
func (s *Set) Len() int { return len(s.Values) }

// Sorted returns the values in order.
func (s *Set) Sorted() []string {
	out := make([]string, 0, len(s.Values))
	for v := range s.Values {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// Columns returns [field].
func (s *Set) Columns() []string { return []string{s.Field} }

// Rows returns one row per value, in order.
func (s *Set) Rows() [][]string {
	vals := s.Sorted()
	rows := make([][]string, len(vals))
	for i, v := range vals {
		rows[i] = []string{v}
	}
	return rows
}
