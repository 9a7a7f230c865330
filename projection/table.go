package projection

import (
	"strconv"
)

// Table is a fold result that renders as a table: the state of every
// ready-made fold implements it, so a command line can print any of them
// (and encoding/json renders each as an object with snake_case fields).
type Table interface {
	// Columns returns the column headers.
	Columns() []string
	// Rows returns the rows, each as long as Columns, in a fixed order.
	Rows() [][]string
}

// AsTable turns a projection whose state renders as a table into one whose
// state is the [Table] itself, so folds of different state types can be
// chosen at run time (see [Spec]). Snapshots keep p's codec.
func AsTable[S Table](p Projection[S]) Projection[Table] {
	out := Projection[Table]{Name: p.Name, Version: p.Version, err: p.err, Codec: tableCodec[S]{p.codec()}}
	if p.Init != nil {
		out.Init = func() Table { return p.Init() }
	} else {
		out.Init = func() Table { var zero S; return zero }
	}
	if p.Apply != nil {
		apply := p.Apply
		out.Apply = func(t Table, ev Event) Table { return apply(t.(S), ev) }
	}
	return out
}

type tableCodec[S Table] struct{ c Codec[S] }

func (c tableCodec[S]) Encode(t Table) ([]byte, error) { return c.c.Encode(t.(S)) }

func (c tableCodec[S]) Decode(b []byte) (Table, error) {
	s, err := c.c.Decode(b)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// parseNumber reads a numeric field value; it refuses what is not a finite
// number (NaN and infinities would not survive a JSON snapshot).
func parseNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != v || v > maxFinite || v < -maxFinite {
		return 0, false
	}
	return v, true
}

const maxFinite = 1.7976931348623157e308

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }
