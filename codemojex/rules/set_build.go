package rules

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// setBuilder checks cells one by one, remembering where each code and
// glyph was first seen so an error can point at both places.
type setBuilder struct {
	file    bool
	set     *Set
	codeAt  map[Code]int
	glyphAt map[string]int
	named   bool
	titled  bool
}

func newSetBuilder(file bool) *setBuilder {
	return &setBuilder{
		file:    file,
		set:     &Set{byCode: map[Code]int{}, byGlyph: map[string]int{}},
		codeAt:  map[Code]int{},
		glyphAt: map[string]int{},
	}
}

// where names a cell's place: a file line, or an index into NewSet's cells.
func (b *setBuilder) where(pos int) string {
	if b.file {
		return fmt.Sprintf("line %d", pos)
	}
	return fmt.Sprintf("cell %d", pos)
}

func (b *setBuilder) fail(pos int, reason error, format string, args ...any) error {
	line := 0
	if b.file {
		line = pos
	}
	return &SetError{Line: line, Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

func (b *setBuilder) setName(pos int, name string) error {
	if !validSetName(name) {
		return b.fail(pos, ErrSetSyntax, "set name %q: want 1 to %d bytes of a-z, 0-9 and '-', not starting with '-'", name, MaxSetNameBytes)
	}
	b.set.name, b.named = name, true
	return nil
}

func (b *setBuilder) setTitle(pos int, title string) error {
	title = collapse(title)
	if !validLabel(title) {
		return b.fail(pos, ErrSetSyntax, "title %q: want at most %d bytes of printable UTF-8", title, MaxLabelBytes)
	}
	b.set.title, b.titled = title, true
	return nil
}

func (b *setBuilder) add(pos int, c Cell) error {
	if !c.Code.Valid() {
		return b.fail(pos, ErrMalformedCode, "%q: want 4 digits XXYY (column, row)", string(c.Code))
	}
	if first, dup := b.codeAt[c.Code]; dup {
		return b.fail(pos, ErrDuplicateCode, "code %s again (first at %s)", c.Code, b.where(first))
	}
	if !validGlyph(c.Glyph) {
		return b.fail(pos, ErrBadGlyph, "glyph %q of %s: want 1 to %d bytes of UTF-8 without spaces or control characters", c.Glyph, c.Code, MaxGlyphBytes)
	}
	if first, dup := b.glyphAt[c.Glyph]; dup {
		return b.fail(pos, ErrDuplicateGlyph, "glyph %s of %s again (first at %s)", c.Glyph, c.Code, b.where(first))
	}
	c.Name = collapse(c.Name)
	if !validLabel(c.Name) {
		return b.fail(pos, ErrSetSyntax, "name %q of %s: want at most %d bytes of printable UTF-8", c.Name, c.Code, MaxLabelBytes)
	}
	b.codeAt[c.Code], b.glyphAt[c.Glyph] = pos, pos
	s := b.set
	s.byCode[c.Code], s.byGlyph[c.Glyph] = len(s.cells), len(s.cells)
	s.cells = append(s.cells, c)
	s.cols, s.rows = max(s.cols, c.Code.Col()+1), max(s.rows, c.Code.Row()+1)
	return nil
}

func (b *setBuilder) finish() (*Set, error) {
	if !b.named {
		return nil, b.fail(0, ErrSetSyntax, "no \"name\" line")
	}
	if n := len(b.set.cells); n < MinSetSize {
		return nil, b.fail(0, ErrWrongCount, "%d cells, want at least %d", n, MinSetSize)
	}
	if b.set.title == "" {
		b.set.title = b.set.name
	}
	return b.set, nil
}

func validSetName(s string) bool {
	if s == "" || len(s) > MaxSetNameBytes || s[0] == '-' {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validGlyph(s string) bool {
	if s == "" || len(s) > MaxGlyphBytes || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// validLabel accepts "" and printable text; collapse has already folded
// whitespace runs into single spaces.
func validLabel(s string) bool {
	if len(s) > MaxLabelBytes || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
