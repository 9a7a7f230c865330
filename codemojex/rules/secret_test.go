package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDrawSecret(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	rng := seeded(7)
	// counts[position][code] over many draws: every code should appear at
	// every position about equally often.
	counts := [CodeLength]map[Code]int{}
	for i := range counts {
		counts[i] = map[Code]int{}
	}
	const draws = 36000
	for range draws {
		s, err := DrawSecret(kb, rng)
		require.NoError(t, err)
		seen := map[Code]bool{}
		for i, c := range s {
			if !kb.Contains(c) || seen[c] {
				t.Fatalf("secret %s: %s off the keyboard or repeated", s, c)
			}
			seen[c] = true
			counts[i][c]++
		}
	}
	for i := range counts {
		require.Len(t, counts[i], 36)
		for c, n := range counts[i] {
			require.InDelta(t, draws/36, n, 150, "position %d code %s", i, c)
		}
	}

	a, err := DrawSecret(kb, seeded(42))
	require.NoError(t, err)
	b, err := DrawSecret(kb, seeded(42))
	require.NoError(t, err)
	require.Equal(t, a, b, "a seeded source reproduces the draw")

	c, err := DrawSecret(kb, nil)
	require.NoError(t, err, "nil draws from crypto/rand")
	_, err = NewSecret(kb, codeStrings(c[:]))
	require.NoError(t, err)

	six, err := ParseKeyboard("0000,0001,0002,0003,0004,0005")
	require.NoError(t, err)
	s, err := DrawSecret(six, CryptoRand())
	require.NoError(t, err)
	require.ElementsMatch(t, six.Codes(), s[:], "a 6-code keyboard draws a permutation")
}

func TestDrawSecretBadKeyboard(t *testing.T) {
	t.Parallel()
	s, err := DrawSecret(Keyboard{}, seeded(1))
	require.Equal(t, Secret{}, s)
	require.ErrorIs(t, err, ErrBadKeyboard)
	require.ErrorIs(t, err, ErrWrongCount)
}

func TestNewSecret(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	s, err := ParseSecret(kb, "0000,0101,0202,0303,0404,0505")
	require.NoError(t, err)
	require.Equal(t, Secret{"0000", "0101", "0202", "0303", "0404", "0505"}, s)
	require.Equal(t, "0000,0101,0202,0303,0404,0505", s.String())
	require.Equal(t, 3, s.Index("0303"))
	require.Equal(t, -1, s.Index("0606"))

	tests := []struct {
		name    string
		codes   []string
		wantErr error
	}{
		{name: "five", codes: []string{"0000", "0101", "0202", "0303", "0404"}, wantErr: ErrWrongCount},
		{name: "seven", codes: []string{"0000", "0101", "0202", "0303", "0404", "0505", "0001"}, wantErr: ErrWrongCount},
		{name: "malformed", codes: []string{"0000", "0101", "0202", "0303", "0404", "55"}, wantErr: ErrMalformedCode},
		{name: "off keyboard", codes: []string{"0000", "0101", "0202", "0303", "0404", "0606"}, wantErr: ErrUnknownCode},
		{name: "duplicate", codes: []string{"0000", "0101", "0202", "0303", "0404", "0000"}, wantErr: ErrDuplicateCode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := NewSecret(kb, tt.codes)
			require.Equal(t, Secret{}, s)
			require.ErrorIs(t, err, ErrBadSecret)
			require.ErrorIs(t, err, tt.wantErr)
			require.NotErrorIs(t, err, ErrBadGuess, "a bad stored secret is not the player's fault")
		})
	}
}

func codeStrings(cs []Code) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}
