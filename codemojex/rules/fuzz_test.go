package rules

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func FuzzParseGuess(f *testing.F) {
	for _, s := range []string{
		"0000,0101,0202,0303,0404,0505",
		"0000 0101 0202 0303 0404 0505",
		"0000,0000,0202,0303,0404,0505",
		"0000,0101,0202,0303,0404,0606",
		"0000,0101,0202,0303,0404",
		"0000,0101,0202,0303,0404,0505,0001",
		"0000,01a1,0202,0303,0404,0505",
		"",
		",,,,,,",
		"🐶,🐱,🐭,🐹,🐰,🦊",
	} {
		f.Add(s)
	}
	kb := dogs(f)
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGuess(kb, s)

		// An oracle written from the rule, not from the code.
		fields := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(", \t\n\r", r) })
		valid := len(fields) == CodeLength
		seen := map[string]bool{}
		for _, c := range fields {
			valid = valid && kb.Contains(Code(c)) && !seen[c]
			seen[c] = true
		}
		if valid != (err == nil) {
			t.Fatalf("ParseGuess(%q) = %v, oracle valid=%v", s, err, valid)
		}
		if err != nil {
			var ce *CodesError
			if !errors.As(err, &ce) || !errors.Is(err, ErrBadGuess) {
				t.Fatalf("ParseGuess(%q): untyped error %v", s, err)
			}
			if !errors.Is(ce.Reason, ErrWrongCount) && (ce.Position < 0 || ce.Position >= CodeLength || fields[ce.Position] != ce.Code) {
				t.Fatalf("ParseGuess(%q): error points at position %d code %q", s, ce.Position, ce.Code)
			}
			if g != (Guess{}) {
				t.Fatalf("ParseGuess(%q): error with a guess %v", s, g)
			}
			return
		}
		back, err := ParseGuess(kb, g.String())
		if err != nil || back != g {
			t.Fatalf("round trip of %q: %v, %v", g.String(), back, err)
		}
		r := Score(Secret(g), g)
		if !r.Cracked() {
			t.Fatalf("a guess scored against itself: %d", r.Total)
		}
	})
}

func FuzzLoadSet(f *testing.F) {
	for _, name := range Builtins() {
		data, err := builtinFiles.ReadFile("sets/" + name + ".txt")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name a\n" + sixCells))
	f.Add([]byte("name a\ntitle T\n" + sixCells + "0000 z\n"))
	f.Add([]byte("name a\n" + sixCells + "0909 a\n"))
	f.Add([]byte("\uFEFFname a\n# c\n\n" + sixCells))
	f.Add([]byte("name a\n0000\n"))
	f.Add([]byte("title\nname -\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := LoadSet(bytes.NewReader(data))
		if err != nil {
			var se *SetError
			if !errors.As(err, &se) || !errors.Is(err, ErrBadSet) || se.Reason == nil {
				t.Fatalf("untyped error %v", err)
			}
			if s != nil {
				t.Fatalf("error with a set")
			}
			return
		}
		if s.Len() < MinSetSize {
			t.Fatalf("%d cells", s.Len())
		}
		codes, glyphs := map[Code]bool{}, map[string]bool{}
		for _, c := range s.Cells() {
			if !c.Code.Valid() || codes[c.Code] || glyphs[c.Glyph] || !validGlyph(c.Glyph) {
				t.Fatalf("bad cell %+v", c)
			}
			if c.Code.Col() >= s.Cols() || c.Code.Row() >= s.Rows() {
				t.Fatalf("cell %s outside the %dx%d grid", c.Code, s.Cols(), s.Rows())
			}
			codes[c.Code], glyphs[c.Glyph] = true, true
		}
		var buf bytes.Buffer
		if _, err := s.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := LoadSet(&buf)
		if err != nil {
			t.Fatalf("reloading %q: %v", buf.String(), err)
		}
		requireSameSet(t, s, back)
		if _, err := DrawSecret(s.Keyboard(), seeded(1)); err != nil {
			t.Fatalf("a loaded set cannot draw a secret: %v", err)
		}
	})
}

func FuzzParseCode(f *testing.F) {
	for _, s := range []string{"0305", "", "9999", "03a5", "00000", "٠٠٠٠"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCode(s)
		if err != nil {
			if !errors.Is(err, ErrMalformedCode) || c != "" {
				t.Fatalf("ParseCode(%q) = %q, %v", s, c, err)
			}
			return
		}
		back, err := CodeAt(c.Col(), c.Row())
		if err != nil || back != c {
			t.Fatalf("CodeAt(%d, %d) = %q, %v; want %q", c.Col(), c.Row(), back, err, c)
		}
	})
}
