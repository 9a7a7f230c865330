package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		col     int
		row     int
		wantErr bool
	}{
		{name: "column 3 row 5", in: "0305", col: 3, row: 5},
		{name: "origin", in: "0000", col: 0, row: 0},
		{name: "corner", in: "9999", col: 99, row: 99},
		{name: "empty", in: "", wantErr: true},
		{name: "three digits", in: "305", wantErr: true},
		{name: "five digits", in: "03050", wantErr: true},
		{name: "letter", in: "03a5", wantErr: true},
		{name: "sign", in: "-305", wantErr: true},
		{name: "space", in: "03 5", wantErr: true},
		{name: "unicode digit", in: "03٥5", wantErr: true},
		{name: "glyph", in: "🐶", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ParseCode(tt.in)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrMalformedCode)
				var ce *CodeError
				require.ErrorAs(t, err, &ce)
				require.Equal(t, tt.in, ce.Input)
				require.Empty(t, c)
				require.False(t, Code(tt.in).Valid())
				require.Equal(t, -1, Code(tt.in).Col())
				require.Equal(t, -1, Code(tt.in).Row())
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.col, c.Col())
			require.Equal(t, tt.row, c.Row())
			require.Equal(t, tt.in, c.String())
		})
	}
}

func TestCodeAtRoundTrip(t *testing.T) {
	t.Parallel()
	for col := range MaxGrid {
		for row := range MaxGrid {
			c, err := CodeAt(col, row)
			require.NoError(t, err)
			require.Equal(t, col, c.Col())
			require.Equal(t, row, c.Row())
			back, err := ParseCode(string(c))
			require.NoError(t, err)
			require.Equal(t, c, back)
		}
	}
}

func TestCodeAtOutOfGrid(t *testing.T) {
	t.Parallel()
	for _, p := range [][2]int{{-1, 0}, {0, -1}, {100, 0}, {0, 100}, {1000, 1000}} {
		c, err := CodeAt(p[0], p[1])
		require.ErrorIs(t, err, ErrMalformedCode, "%v", p)
		require.Empty(t, c)
	}
}

func TestCodeOffset(t *testing.T) {
	t.Parallel()
	x, y := Code("0305").Offset(144)
	require.Equal(t, []int{-432, -720}, []int{x, y})
	x, y = Code("0305").Offset(72)
	require.Equal(t, []int{-216, -360}, []int{x, y})
	x, y = Code("bad").Offset(144)
	require.Equal(t, []int{0, 0}, []int{x, y})
}
