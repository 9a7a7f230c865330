package rules

import "strings"

// Limits on the text of a set. They keep a set file small enough to show
// on a phone keyboard and to fit in a message.
const (
	// MinSetSize is the fewest cells a set (or a keyboard) may have: enough
	// to draw a secret of CodeLength distinct cells.
	MinSetSize = CodeLength
	// MaxGlyphBytes bounds a glyph; the longest emoji ZWJ sequences take 25
	// or so.
	MaxGlyphBytes = 32
	// MaxLabelBytes bounds a set title or a cell name.
	MaxLabelBytes = 64
	// MaxSetNameBytes bounds a set name.
	MaxSetNameBytes = 32
)

// Cell is one emoji of a set: its grid code, the glyph shown for it and an
// optional name (for screen readers and text surfaces).
type Cell struct {
	// Code is the cell's place on the grid, unique in the set.
	Code Code
	// Glyph is the emoji shown for the cell (one whitespace-free token of
	// at most MaxGlyphBytes), unique in the set.
	Glyph string
	// Name is optional plain text, such as "dog".
	Name string
}

// Set is an emoji set: a named grid of cells, each with a distinct code and
// a distinct glyph. The order of the cells is the keyboard order. A Set is
// immutable and safe for concurrent use.
type Set struct {
	name    string
	title   string
	cells   []Cell
	byCode  map[Code]int
	byGlyph map[string]int
	cols    int
	rows    int
}

// NewSet builds a set named name (lowercase letters, digits and '-', 1 to
// 32 bytes, starting with a letter or digit) from cells in keyboard order.
// The title defaults to the name. Cells need not fill the grid; runs of
// whitespace in the title and the cell names collapse to one space.
//
// It returns a *[SetError] (matching [ErrBadSet]) when the name is
// malformed ([ErrSetSyntax]), a code is malformed ([ErrMalformedCode]) or
// repeated ([ErrDuplicateCode]), a glyph is malformed ([ErrBadGlyph]) or
// repeated ([ErrDuplicateGlyph]), or there are fewer than [MinSetSize]
// cells ([ErrWrongCount]).
func NewSet(name, title string, cells []Cell) (*Set, error) {
	b := newSetBuilder(false)
	if err := b.setName(0, name); err != nil {
		return nil, err
	}
	if err := b.setTitle(0, title); err != nil {
		return nil, err
	}
	for i, c := range cells {
		if err := b.add(i, c); err != nil {
			return nil, err
		}
	}
	return b.finish()
}

// Name returns the set's name, such as "animals".
func (s *Set) Name() string { return s.name }

// Title returns the set's title, such as "Animals".
func (s *Set) Title() string { return s.title }

// Len returns the number of cells.
func (s *Set) Len() int { return len(s.cells) }

// Cols returns the grid width: one more than the highest column used.
func (s *Set) Cols() int { return s.cols }

// Rows returns the grid height: one more than the highest row used.
func (s *Set) Rows() int { return s.rows }

// Cells returns a copy of the cells in keyboard order.
func (s *Set) Cells() []Cell { return append([]Cell(nil), s.cells...) }

// Codes returns the codes in keyboard order.
func (s *Set) Codes() []Code {
	out := make([]Code, len(s.cells))
	for i, c := range s.cells {
		out[i] = c.Code
	}
	return out
}

// Cell returns the cell of code, and false when the set has no such code.
func (s *Set) Cell(code Code) (Cell, bool) {
	i, ok := s.byCode[code]
	if !ok {
		return Cell{}, false
	}
	return s.cells[i], true
}

// CellOfGlyph returns the cell drawn as glyph, and false when no cell is.
// Surfaces that let a player type emoji use it to find the codes.
func (s *Set) CellOfGlyph(glyph string) (Cell, bool) {
	i, ok := s.byGlyph[glyph]
	if !ok {
		return Cell{}, false
	}
	return s.cells[i], true
}

// Contains reports whether code is a cell of the set.
func (s *Set) Contains(code Code) bool {
	_, ok := s.byCode[code]
	return ok
}

// Render returns the glyphs of codes side by side, with "?" for a code
// the set does not have.
func (s *Set) Render(codes []Code) string {
	var sb strings.Builder
	for _, c := range codes {
		if i, ok := s.byCode[c]; ok {
			sb.WriteString(s.cells[i].Glyph)
		} else {
			sb.WriteString("?")
		}
	}
	return sb.String()
}

// Keyboard returns the whole set as a keyboard, in the set's order.
func (s *Set) Keyboard() Keyboard {
	codes := s.Codes()
	return Keyboard{codes: codes, index: indexOf(codes)}
}
