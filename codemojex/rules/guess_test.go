package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewGuess(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	g, err := NewGuess(kb, []string{"0000", "0102", "0304", "0501", "0205", "0403"})
	require.NoError(t, err)
	require.Equal(t, Guess{"0000", "0102", "0304", "0501", "0205", "0403"}, g)
	require.Equal(t, "0000,0102,0304,0501,0205,0403", g.String())

	for _, text := range []string{
		"0000,0102,0304,0501,0205,0403",
		"0000 0102 0304 0501 0205 0403",
		" 0000, 0102 ,0304,,0501\t0205\n0403 ",
	} {
		p, err := ParseGuess(kb, text)
		require.NoError(t, err, text)
		require.Equal(t, g, p, text)
	}
}

func TestNewGuessBadInput(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	tests := []struct {
		name    string
		codes   []string
		wantErr error
		pos     int
		code    string
		first   int
		msg     string
	}{
		{
			name: "none", codes: nil, wantErr: ErrWrongCount, pos: -1, first: -1,
			msg: "rules: bad guess: 0 codes, want exactly 6",
		},
		{
			name: "five codes", codes: []string{"0000", "0101", "0202", "0303", "0404"}, wantErr: ErrWrongCount, pos: -1, first: -1,
			msg: "rules: bad guess: 5 codes, want exactly 6",
		},
		{
			name: "seven codes", codes: []string{"0000", "0101", "0202", "0303", "0404", "0505", "0001"}, wantErr: ErrWrongCount, pos: -1, first: -1,
			msg: "rules: bad guess: 7 codes, want exactly 6",
		},
		{name: "seven codes with junk", codes: []string{"x", "x", "x", "x", "x", "x", "x"}, wantErr: ErrWrongCount, pos: -1, first: -1},
		{
			name: "malformed code", codes: []string{"0000", "0101", "22", "0303", "0404", "0505"}, wantErr: ErrMalformedCode, pos: 2, code: "22", first: -1,
			msg: `rules: bad guess: position 2: "22" is not a code (want 4 digits XXYY)`,
		},
		{name: "glyph instead of code", codes: []string{"🐶", "0101", "0202", "0303", "0404", "0505"}, wantErr: ErrMalformedCode, pos: 0, code: "🐶", first: -1},
		{name: "empty code", codes: []string{"0000", "0101", "0202", "0303", "0404", ""}, wantErr: ErrMalformedCode, pos: 5, code: "", first: -1},
		{
			name: "off keyboard", codes: []string{"0000", "0101", "0202", "0303", "0606", "0505"}, wantErr: ErrUnknownCode, pos: 4, code: "0606", first: -1,
			msg: `rules: bad guess: position 4: code "0606" is not on the keyboard`,
		},
		{
			name: "duplicate", codes: []string{"0000", "0101", "0202", "0303", "0101", "0505"}, wantErr: ErrDuplicateCode, pos: 4, code: "0101", first: 1,
			msg: `rules: bad guess: position 4: code "0101" repeats position 1`,
		},
		{name: "one code six times", codes: []string{"0303", "0303", "0303", "0303", "0303", "0303"}, wantErr: ErrDuplicateCode, pos: 1, code: "0303", first: 0},
		{name: "first offence wins", codes: []string{"0000", "0000", "zz", "0606", "0404", "0505"}, wantErr: ErrDuplicateCode, pos: 1, code: "0000", first: 0},
		{name: "off keyboard before duplicate", codes: []string{"0000", "0606", "0000", "0303", "0404", "0505"}, wantErr: ErrUnknownCode, pos: 1, code: "0606", first: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := NewGuess(kb, tt.codes)
			require.Equal(t, Guess{}, g)
			require.ErrorIs(t, err, ErrBadGuess)
			require.ErrorIs(t, err, tt.wantErr)
			var ce *CodesError
			require.ErrorAs(t, err, &ce)
			require.Equal(t, "guess", ce.Of)
			require.Equal(t, len(tt.codes), ce.Count)
			require.Equal(t, tt.pos, ce.Position)
			require.Equal(t, tt.code, ce.Code)
			require.Equal(t, tt.first, ce.First)
			if tt.msg != "" {
				require.EqualError(t, err, tt.msg)
			}
		})
	}
}

func TestNewGuessZeroKeyboard(t *testing.T) {
	t.Parallel()
	g, err := NewGuess(Keyboard{}, []string{"0000", "0101", "0202", "0303", "0404", "0505"})
	require.Equal(t, Guess{}, g)
	require.ErrorIs(t, err, ErrUnknownCode, "the zero keyboard accepts no guess")
}

func TestParseGuessBadInput(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	for _, text := range []string{"", ",,, ", "0000", "0000;0101;0202;0303;0404;0505", "0000,0101,0202,0303,0404,0505," + "0001"} {
		_, err := ParseGuess(kb, text)
		require.ErrorIs(t, err, ErrBadGuess, text)
	}
}
