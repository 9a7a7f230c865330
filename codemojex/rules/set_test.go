package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// gridCells returns cols×rows cells in row-major order with distinct
// letter-pair glyphs, for tests that need a set of a given shape.
func gridCells(cols, rows int) []Cell {
	var out []Cell
	for r := range rows {
		for c := range cols {
			code, err := CodeAt(c, r)
			if err != nil {
				panic(err)
			}
			out = append(out, Cell{Code: code, Glyph: fmt.Sprintf("g%d_%d", c, r)})
		}
	}
	return out
}

func mustSet(t testing.TB, cells []Cell) *Set {
	t.Helper()
	s, err := NewSet("test", "", cells)
	require.NoError(t, err)
	return s
}

func TestNewSet(t *testing.T) {
	t.Parallel()
	s, err := NewSet("dogs", "  Good   dogs ", gridCells(6, 6))
	require.NoError(t, err)
	require.Equal(t, "dogs", s.Name())
	require.Equal(t, "Good dogs", s.Title())
	require.Equal(t, 36, s.Len())
	require.Equal(t, 6, s.Cols())
	require.Equal(t, 6, s.Rows())
	codes := s.Codes()
	require.Len(t, codes, 36)
	require.Equal(t, Code("0000"), codes[0])
	require.Equal(t, Code("0100"), codes[1], "row-major: the next column first")
	require.Equal(t, Code("0001"), codes[6])
	for _, c := range codes {
		require.True(t, c.Valid())
		require.True(t, s.Contains(c))
	}
	cell, ok := s.Cell("0305")
	require.True(t, ok)
	require.Equal(t, "g3_5", cell.Glyph)
	byGlyph, ok := s.CellOfGlyph("g3_5")
	require.True(t, ok)
	require.Equal(t, cell, byGlyph)
	_, ok = s.Cell("0606")
	require.False(t, ok)
	_, ok = s.CellOfGlyph("nope")
	require.False(t, ok)
	require.Equal(t, "g0_0g1_0?", s.Render([]Code{"0000", "0100", "9999"}))

	cells := s.Cells()
	cells[0].Glyph = "mutated"
	require.Equal(t, "g0_0", s.Cells()[0].Glyph, "Cells returns a copy")

	kb := s.Keyboard()
	require.Equal(t, codes, kb.Codes())

	untitled, err := NewSet("x", "", gridCells(3, 2))
	require.NoError(t, err)
	require.Equal(t, "x", untitled.Title(), "the title defaults to the name")
	require.Equal(t, 3, untitled.Cols())
	require.Equal(t, 2, untitled.Rows())

	sparse, err := NewSet("sparse", "", []Cell{
		{Code: "0000", Glyph: "a"},
		{Code: "0907", Glyph: "b"},
		{Code: "0102", Glyph: "c"},
		{Code: "0203", Glyph: "d"},
		{Code: "0304", Glyph: "e"},
		{Code: "0405", Glyph: "f", Name: " eff\t one "},
	})
	require.NoError(t, err)
	require.Equal(t, 10, sparse.Cols())
	require.Equal(t, 8, sparse.Rows())
	f, _ := sparse.Cell("0405")
	require.Equal(t, "eff one", f.Name)
}

func TestNewSetBadInput(t *testing.T) {
	t.Parallel()
	six := gridCells(6, 1)
	with := func(i int, c Cell) []Cell {
		out := append([]Cell(nil), six...)
		out[i] = c
		return out
	}
	tests := []struct {
		name    string
		set     string
		title   string
		cells   []Cell
		wantErr error
		detail  string
	}{
		{name: "empty name", set: "", cells: six, wantErr: ErrSetSyntax},
		{name: "upper-case name", set: "Dogs", cells: six, wantErr: ErrSetSyntax},
		{name: "name with space", set: "my set", cells: six, wantErr: ErrSetSyntax},
		{name: "name starting with dash", set: "-x", cells: six, wantErr: ErrSetSyntax},
		{name: "long name", set: strings.Repeat("a", 33), cells: six, wantErr: ErrSetSyntax},
		{name: "long title", set: "x", title: strings.Repeat("t", 65), cells: six, wantErr: ErrSetSyntax},
		{name: "control in title", set: "x", title: "a\x00b", cells: six, wantErr: ErrSetSyntax},
		{name: "no cells", set: "x", wantErr: ErrWrongCount, detail: "0 cells, want at least 6"},
		{name: "five cells", set: "x", cells: six[:5], wantErr: ErrWrongCount, detail: "5 cells"},
		{name: "malformed code", set: "x", cells: with(2, Cell{Code: "22", Glyph: "q"}), wantErr: ErrMalformedCode, detail: `"22"`},
		{name: "empty code", set: "x", cells: with(2, Cell{Glyph: "q"}), wantErr: ErrMalformedCode},
		{name: "duplicate code", set: "x", cells: with(4, Cell{Code: six[1].Code, Glyph: "q"}), wantErr: ErrDuplicateCode, detail: "code 0100 again (first at cell 1)"},
		{name: "duplicate glyph", set: "x", cells: with(5, Cell{Code: "0909", Glyph: six[0].Glyph}), wantErr: ErrDuplicateGlyph, detail: "first at cell 0"},
		{name: "empty glyph", set: "x", cells: with(0, Cell{Code: "0909"}), wantErr: ErrBadGlyph},
		{name: "glyph with space", set: "x", cells: with(0, Cell{Code: "0909", Glyph: "a b"}), wantErr: ErrBadGlyph},
		{name: "glyph with control", set: "x", cells: with(0, Cell{Code: "0909", Glyph: "a\x07"}), wantErr: ErrBadGlyph},
		{name: "glyph not utf-8", set: "x", cells: with(0, Cell{Code: "0909", Glyph: "\xff"}), wantErr: ErrBadGlyph},
		{name: "glyph too long", set: "x", cells: with(0, Cell{Code: "0909", Glyph: strings.Repeat("🐶", 9)}), wantErr: ErrBadGlyph},
		{name: "cell name too long", set: "x", cells: with(0, Cell{Code: "0909", Glyph: "z", Name: strings.Repeat("n", 65)}), wantErr: ErrSetSyntax},
		{name: "cell name with control", set: "x", cells: with(0, Cell{Code: "0909", Glyph: "z", Name: "a\x1bb"}), wantErr: ErrSetSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := NewSet(tt.set, tt.title, tt.cells)
			require.Nil(t, s)
			require.ErrorIs(t, err, ErrBadSet)
			require.ErrorIs(t, err, tt.wantErr)
			var se *SetError
			require.ErrorAs(t, err, &se)
			require.Zero(t, se.Line, "NewSet reads no file")
			require.Contains(t, se.Detail, tt.detail)
			require.True(t, strings.HasPrefix(err.Error(), "rules: bad emoji set: "), err.Error())
		})
	}
}

func TestBuiltins(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"animals", "food"}, Builtins())
	glyphs := map[string]string{}
	for _, name := range Builtins() {
		s, err := Builtin(name)
		require.NoError(t, err)
		require.Equal(t, name, s.Name())
		require.GreaterOrEqual(t, s.Len(), 36)
		require.Equal(t, 8, s.Cols())
		require.Equal(t, 6, s.Rows())
		require.Equal(t, s.Cols()*s.Rows(), s.Len(), "the built-in grids are full")
		for _, c := range s.Cells() {
			require.NotEmpty(t, c.Name, "%s %s has a name", name, c.Code)
			other, dup := glyphs[c.Glyph]
			require.False(t, dup, "glyph %s is in %s and %s", c.Glyph, other, name)
			glyphs[c.Glyph] = name
		}
		again, err := Builtin(name)
		require.NoError(t, err)
		require.Same(t, s, again, "built-in sets load once")
	}
	s, err := Builtin("animals")
	require.NoError(t, err)
	dog, ok := s.Cell("0000")
	require.True(t, ok)
	require.Equal(t, Cell{Code: "0000", Glyph: "🐶", Name: "dog"}, dog)

	_, err = Builtin("dogs")
	require.ErrorIs(t, err, ErrUnknownSet)
	require.ErrorContains(t, err, `"dogs" (built-in: animals, food)`)
}
