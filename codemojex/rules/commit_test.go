package rules

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// countingBytes is a deterministic salt source: 0x00, 0x01, 0x02, …
func countingBytes() *bytes.Reader {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return bytes.NewReader(b)
}

// knownCommitment was computed outside Go, with the command in Commit's doc:
//
//	printf '0000\0360101\0360202\0360303\0360404\0360505\036%s' \
//	  000102030405060708090a0b0c0d0e0f | sha256sum
const knownCommitment = "8747d45f2b784db79c502b6d6e01b6990213030a8970657cab6aaa8b33859aad"

func TestCommitKnownVector(t *testing.T) {
	t.Parallel()
	c, r, err := Commit(testSecret, countingBytes())
	require.NoError(t, err)
	require.Equal(t, "000102030405060708090a0b0c0d0e0f", r.Salt)
	require.Equal(t, testSecret, r.Secret)
	require.Equal(t, knownCommitment, c)
	require.NoError(t, Verify(c, r))
	again, err := CommitmentOf(r)
	require.NoError(t, err)
	require.Equal(t, c, again)
}

func TestCommitVerify(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	rng := seeded(11)
	seen := map[string]bool{}
	for range 200 {
		s, err := DrawSecret(kb, rng)
		require.NoError(t, err)
		c, r, err := Commit(s, nil)
		require.NoError(t, err)
		require.Len(t, c, 64)
		require.Len(t, r.Salt, 32)
		require.False(t, seen[c], "a fresh salt makes every commitment fresh")
		seen[c] = true
		require.NoError(t, Verify(c, r))

		// Any change to the reveal breaks it.
		swapped := r
		swapped.Secret[0], swapped.Secret[1] = swapped.Secret[1], swapped.Secret[0]
		require.ErrorIs(t, Verify(c, swapped), ErrCommitmentMismatch)
		resalted := r
		resalted.Salt = strings.Repeat("0", 32)
		require.ErrorIs(t, Verify(c, resalted), ErrCommitmentMismatch)
	}
}

func TestVerifyBadInput(t *testing.T) {
	t.Parallel()
	_, good, err := Commit(testSecret, countingBytes())
	require.NoError(t, err)
	tests := []struct {
		name       string
		commitment string
		reveal     Reveal
		wantErr    error
	}{
		{name: "empty commitment", commitment: "", reveal: good, wantErr: ErrBadCommitment},
		{name: "upper-case commitment", commitment: strings.ToUpper(knownCommitment), reveal: good, wantErr: ErrBadCommitment},
		{name: "short commitment", commitment: knownCommitment[:63], reveal: good, wantErr: ErrBadCommitment},
		{name: "non-hex commitment", commitment: "g" + knownCommitment[1:], reveal: good, wantErr: ErrBadCommitment},
		{name: "other commitment", commitment: strings.Repeat("0", 64), reveal: good, wantErr: ErrCommitmentMismatch},
		{name: "empty salt", commitment: knownCommitment, reveal: Reveal{Secret: testSecret}, wantErr: ErrBadCommitment},
		{name: "upper-case salt", commitment: knownCommitment, reveal: Reveal{Secret: testSecret, Salt: strings.ToUpper(good.Salt)}, wantErr: ErrBadCommitment},
		{name: "zero secret", commitment: knownCommitment, reveal: Reveal{Salt: good.Salt}, wantErr: ErrMalformedCode},
		{
			name: "secret with repeat", commitment: knownCommitment,
			reveal: Reveal{Secret: Secret{"0000", "0000", "0202", "0303", "0404", "0505"}, Salt: good.Salt}, wantErr: ErrDuplicateCode,
		},
		{
			name: "secret with a separator inside a code", commitment: knownCommitment,
			reveal: Reveal{Secret: Secret{"00\x1e0", "0101", "0202", "0303", "0404", "0505"}, Salt: good.Salt}, wantErr: ErrMalformedCode,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorIs(t, Verify(tt.commitment, tt.reveal), tt.wantErr)
		})
	}
}

func TestCommitBadInput(t *testing.T) {
	t.Parallel()
	c, r, err := Commit(Secret{"0000", "0101", "0202", "0303", "0404", "0000"}, countingBytes())
	require.ErrorIs(t, err, ErrBadSecret)
	require.ErrorIs(t, err, ErrDuplicateCode)
	require.Empty(t, c)
	require.Equal(t, Reveal{}, r)

	boom := errors.New("entropy gone")
	c, r, err = Commit(testSecret, iotest.ErrReader(boom))
	require.ErrorIs(t, err, boom)
	require.Empty(t, c)
	require.Equal(t, Reveal{}, r)

	_, _, err = Commit(testSecret, bytes.NewReader(make([]byte, SaltBytes-1)))
	require.Error(t, err, "a short salt source is an error, never a short salt")
}
