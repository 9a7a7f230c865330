package rules

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

const sixCells = "0000 a\n0100 b\n0200 c\n0300 d\n0400 e\n0500 f\n"

func TestLoadSet(t *testing.T) {
	t.Parallel()
	src := "\uFEFF# a comment\n\n  # indented comment\nname farm\ntitle   Farm  & Forest \n" +
		"0000 🐶 dog\r\n0100 🐱 cat\n0001 🐭 field mouse\n0101 🐹\n0002\t🐰\trabbit\n0102 🦊 fox # not a comment\n"
	s, err := LoadSet(strings.NewReader(src))
	require.NoError(t, err)
	require.Equal(t, "farm", s.Name())
	require.Equal(t, "Farm & Forest", s.Title())
	require.Equal(t, []Cell{
		{Code: "0000", Glyph: "🐶", Name: "dog"},
		{Code: "0100", Glyph: "🐱", Name: "cat"},
		{Code: "0001", Glyph: "🐭", Name: "field mouse"},
		{Code: "0101", Glyph: "🐹"},
		{Code: "0002", Glyph: "🐰", Name: "rabbit"},
		{Code: "0102", Glyph: "🦊", Name: "fox # not a comment"},
	}, s.Cells())
	require.Equal(t, 2, s.Cols())
	require.Equal(t, 3, s.Rows())
}

func TestLoadSetRoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range Builtins() {
		s, err := Builtin(name)
		require.NoError(t, err)
		var buf bytes.Buffer
		n, err := s.WriteTo(&buf)
		require.NoError(t, err)
		require.Equal(t, int64(buf.Len()), n)
		back, err := LoadSet(&buf)
		require.NoError(t, err)
		requireSameSet(t, s, back)
	}
	untitled, err := LoadSet(strings.NewReader("name x\n" + sixCells))
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = untitled.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, "name x\n"+sixCells, buf.String(), "a title equal to the name is not written")
}

func requireSameSet(t testing.TB, want, got *Set) {
	t.Helper()
	require.Equal(t, want.Name(), got.Name())
	require.Equal(t, want.Title(), got.Title())
	require.Equal(t, want.Cells(), got.Cells())
	require.Equal(t, want.Cols(), got.Cols())
	require.Equal(t, want.Rows(), got.Rows())
}

func TestLoadSetBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		src     string
		line    int
		wantErr error
		detail  string
	}{
		{name: "empty", src: "", wantErr: ErrSetSyntax, detail: `no "name" line`},
		{name: "no name", src: sixCells, wantErr: ErrSetSyntax, detail: `no "name" line`},
		{name: "two names", src: "name a\nname b\n" + sixCells, line: 2, wantErr: ErrSetSyntax, detail: `second "name"`},
		{name: "name without value", src: "name\n" + sixCells, line: 1, wantErr: ErrSetSyntax},
		{name: "name with two words", src: "name a b\n" + sixCells, line: 1, wantErr: ErrSetSyntax},
		{name: "bad name", src: "name A_B\n" + sixCells, line: 1, wantErr: ErrSetSyntax},
		{name: "two titles", src: "name a\ntitle x\ntitle y\n" + sixCells, line: 3, wantErr: ErrSetSyntax, detail: `second "title"`},
		{name: "unknown directive", src: "name a\ncolor red\n" + sixCells, line: 2, wantErr: ErrSetSyntax, detail: `"color" is neither`},
		{name: "short code", src: "name a\n" + sixCells + "123 g\n", line: 8, wantErr: ErrMalformedCode},
		{name: "missing glyph", src: "name a\n0909\n" + sixCells, line: 2, wantErr: ErrBadGlyph, detail: "code 0909 has no glyph"},
		{name: "duplicate code", src: "name a\n" + sixCells + "\n0300 z\n", line: 9, wantErr: ErrDuplicateCode, detail: "code 0300 again (first at line 5)"},
		{name: "duplicate glyph", src: "name a\n" + sixCells + "0909 c\n", line: 8, wantErr: ErrDuplicateGlyph, detail: "(first at line 4)"},
		{name: "glyph not utf-8", src: "name a\n" + sixCells + "0909 \xfe\n", line: 8, wantErr: ErrBadGlyph},
		{name: "glyph with control", src: "name a\n" + sixCells + "0909 x\x01y\n", line: 8, wantErr: ErrBadGlyph},
		{name: "cell name not utf-8", src: "name a\n" + sixCells + "0909 z \xff\n", line: 8, wantErr: ErrSetSyntax},
		{name: "too few cells", src: "name a\n0000 a\n0100 b\n", wantErr: ErrWrongCount, detail: "2 cells, want at least 6"},
		{name: "line too long", src: "name a\n" + sixCells + "0909 z " + strings.Repeat("n", MaxSetLineBytes) + "\n", line: 8, wantErr: ErrSetSyntax, detail: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := LoadSet(strings.NewReader(tt.src))
			require.Nil(t, s)
			require.ErrorIs(t, err, ErrBadSet)
			require.ErrorIs(t, err, tt.wantErr)
			var se *SetError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tt.line, se.Line, err.Error())
			require.Contains(t, se.Detail, tt.detail)
			if tt.line > 0 {
				require.Contains(t, err.Error(), "line ")
			}
		})
	}
}

func TestLoadSetReaderError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk gone")
	s, err := LoadSet(iotest.ErrReader(boom))
	require.Nil(t, s)
	require.ErrorIs(t, err, boom)
	require.NotErrorIs(t, err, ErrBadSet)

	// A set split across many tiny reads loads the same.
	src := "name a\n" + sixCells
	s, err = LoadSet(iotest.OneByteReader(strings.NewReader(src)))
	require.NoError(t, err)
	require.Equal(t, 6, s.Len())
}
