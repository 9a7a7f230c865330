package rules

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func dogs(t testing.TB) Keyboard {
	t.Helper()
	return mustSet(t, gridCells(6, 6)).Keyboard()
}

func TestNewKeyboard(t *testing.T) {
	t.Parallel()
	kb, err := ParseKeyboard(" 0000,0101, 0202\t0303\n0404,,0505 0606 ")
	require.NoError(t, err)
	require.Equal(t, 7, kb.Len())
	require.Equal(t, "0000,0101,0202,0303,0404,0505,0606", kb.String())
	require.True(t, kb.Contains("0606"))
	require.False(t, kb.Contains("0607"))
	back, err := ParseKeyboard(kb.String())
	require.NoError(t, err)
	require.Equal(t, kb.Codes(), back.Codes())

	codes := kb.Codes()
	codes[0] = "9999"
	require.Equal(t, Code("0000"), kb.Codes()[0], "Codes returns a copy")

	var zero Keyboard
	require.Zero(t, zero.Len())
	require.False(t, zero.Contains("0000"))
	require.Empty(t, zero.String())
}

func TestNewKeyboardBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		codes   []string
		wantErr error
		pos     int
		first   int
		msg     string
	}{
		{name: "nil", codes: nil, wantErr: ErrWrongCount, pos: -1, first: -1, msg: "rules: bad keyboard: 0 codes, want at least 6"},
		{name: "five", codes: []string{"0000", "0001", "0002", "0003", "0004"}, wantErr: ErrWrongCount, pos: -1, first: -1},
		{name: "malformed", codes: []string{"0000", "0001", "x", "0003", "0004", "0005"}, wantErr: ErrMalformedCode, pos: 2, first: -1},
		{name: "duplicate", codes: []string{"0000", "0001", "0002", "0003", "0001", "0005"}, wantErr: ErrDuplicateCode, pos: 4, first: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kb, err := NewKeyboard(tt.codes)
			require.Zero(t, kb.Len())
			require.ErrorIs(t, err, ErrBadKeyboard)
			require.ErrorIs(t, err, tt.wantErr)
			require.NotErrorIs(t, err, ErrBadGuess)
			var ce *CodesError
			require.ErrorAs(t, err, &ce)
			require.Equal(t, "keyboard", ce.Of)
			require.Equal(t, tt.pos, ce.Position)
			require.Equal(t, tt.first, ce.First)
			require.Equal(t, len(tt.codes), ce.Count)
			if tt.msg != "" {
				require.EqualError(t, err, tt.msg)
			}
		})
	}
}

func TestKeyboardReduce(t *testing.T) {
	t.Parallel()
	full := dogs(t)
	rng := seeded(1)
	hits := map[Code]int{}
	for range 2000 {
		kb, err := full.Reduce(24, rng)
		require.NoError(t, err)
		require.Equal(t, 24, kb.Len())
		codes := kb.Codes()
		// A subset, in the full keyboard's order, without repeats.
		last := -1
		for _, c := range codes {
			i := slices.Index(full.Codes(), c)
			if i <= last {
				t.Fatalf("reduced keyboard %v is not an ordered subset", codes)
			}
			last = i
			hits[c]++
		}
		secret, err := DrawSecret(kb, rng)
		require.NoError(t, err)
		for _, c := range secret {
			if !kb.Contains(c) {
				t.Fatalf("secret %s leaves the reduced keyboard %s", secret, kb)
			}
		}
	}
	// Each of the 36 codes is kept with probability 24/36; 2000 draws give
	// about 1333 each. The seed is fixed, so this is not flaky.
	require.Len(t, hits, 36)
	for c, n := range hits {
		require.InDelta(t, 1333, n, 150, "code %s", c)
	}

	same, err := full.Reduce(36, nil)
	require.NoError(t, err)
	require.Equal(t, full.Codes(), same.Codes())

	for _, n := range []int{-1, 0, 5, 37} {
		kb, err := full.Reduce(n, rng)
		require.ErrorIs(t, err, ErrBadKeyboard, "n=%d", n)
		require.ErrorIs(t, err, ErrWrongCount, "n=%d", n)
		require.Zero(t, kb.Len())
	}
}
