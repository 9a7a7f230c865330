package rules

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxSetLineBytes bounds one line of a set file.
const MaxSetLineBytes = 4096

// LoadSet reads an emoji set in the set file format: UTF-8 text, one item
// per line; blank lines and lines whose first non-blank character is '#'
// are skipped; a leading byte-order mark is ignored.
//
//	# comment
//	name animals          the set name, required, once
//	title Farm & Forest   optional, once; defaults to the name
//	0000 🐶 dog           a cell: CODE GLYPH [NAME...], in keyboard order
//	0100 🐱 cat
//
// The code is "XXYY" (column, row); the glyph is one whitespace-free token;
// the rest of the line, if any, is the cell's name. A set holds at least
// [MinSetSize] cells with distinct codes and distinct glyphs.
//
// LoadSet returns a *[SetError] matching [ErrBadSet] (with the line number
// and a reason sentinel, as [NewSet] describes; a line that is too long or
// neither a directive nor a cell is [ErrSetSyntax]), or the reader's error
// wrapped.
func LoadSet(r io.Reader) (*Set, error) {
	b := newSetBuilder(true)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), MaxSetLineBytes)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		if err := b.line(line, text); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &SetError{Line: line + 1, Reason: ErrSetSyntax, Detail: fmt.Sprintf("line longer than %d bytes", MaxSetLineBytes)}
		}
		return nil, fmt.Errorf("rules: read emoji set: %w", err)
	}
	return b.finish()
}

// line takes one line of a set file.
func (b *setBuilder) line(n int, text string) error {
	f := strings.Fields(text)
	if len(f) == 0 || strings.HasPrefix(f[0], "#") {
		return nil
	}
	switch f[0] {
	case "name":
		if b.named {
			return b.fail(n, ErrSetSyntax, "second \"name\" line")
		}
		if len(f) != 2 {
			return b.fail(n, ErrSetSyntax, "want \"name NAME\"")
		}
		return b.setName(n, f[1])
	case "title":
		if b.titled {
			return b.fail(n, ErrSetSyntax, "second \"title\" line")
		}
		return b.setTitle(n, strings.Join(f[1:], " "))
	}
	if !validCode(f[0]) {
		reason := ErrSetSyntax
		if f[0][0] >= '0' && f[0][0] <= '9' {
			reason = ErrMalformedCode // meant as a code
		}
		return b.fail(n, reason, "%q is neither \"name\", \"title\" nor a code XXYY (4 digits: column, row)", f[0])
	}
	if len(f) < 2 {
		return b.fail(n, ErrBadGlyph, "code %s has no glyph", f[0])
	}
	return b.add(n, Cell{Code: Code(f[0]), Glyph: f[1], Name: strings.Join(f[2:], " ")})
}

// WriteTo writes the set in the set file format that [LoadSet] reads back
// to an equal set. It returns the bytes written and the writer's error.
func (s *Set) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "name %s\n", s.name)
	if s.title != s.name {
		fmt.Fprintf(&buf, "title %s\n", s.title)
	}
	for _, c := range s.cells {
		buf.WriteString(string(c.Code) + " " + c.Glyph)
		if c.Name != "" {
			buf.WriteString(" " + c.Name)
		}
		buf.WriteByte('\n')
	}
	return buf.WriteTo(w)
}
