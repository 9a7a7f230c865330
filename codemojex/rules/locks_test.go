package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLocks(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	var l Locks
	l, err := l.Lock(kb, 2, "0305")
	require.NoError(t, err)
	l, err = l.Lock(kb, 0, "0000")
	require.NoError(t, err)

	sent := []string{"0101", "0102", "0103", "0104", "0105", "0200"}
	applied := l.Apply(sent)
	require.Equal(t, []string{"0000", "0102", "0305", "0104", "0105", "0200"}, applied)
	require.Equal(t, "0101", sent[0], "Apply copies")
	g, err := NewGuess(kb, applied)
	require.NoError(t, err)
	require.Equal(t, Code("0305"), g[2], "a locked position wins over what the keyboard sent")

	// Relocking a position replaces its code; unlocking frees it.
	l, err = l.Lock(kb, 2, "0404")
	require.NoError(t, err)
	require.Equal(t, Code("0404"), l[2])
	l, err = l.Unlock(2)
	require.NoError(t, err)
	require.Equal(t, []string{"0000", "0102", "0103", "0104", "0105", "0200"}, l.Apply(sent), "unlock restores free choice")

	// The locked code sent at another position makes the guess repeat it.
	_, err = NewGuess(kb, l.Apply([]string{"0101", "0000", "0103", "0104", "0105", "0200"}))
	require.ErrorIs(t, err, ErrDuplicateCode)

	// A short guess stays short: the count error is not hidden.
	require.Equal(t, []string{"0000"}, l.Apply([]string{"0101"}))
	require.Empty(t, l.Apply(nil))
}

func TestLocksBadInput(t *testing.T) {
	t.Parallel()
	kb := dogs(t)
	base, err := Locks{}.Lock(kb, 1, "0101")
	require.NoError(t, err)
	tests := []struct {
		name    string
		pos     int
		code    string
		wantErr error
	}{
		{name: "negative position", pos: -1, code: "0000", wantErr: ErrBadPosition},
		{name: "position six", pos: 6, code: "0000", wantErr: ErrBadPosition},
		{name: "malformed code", pos: 0, code: "305", wantErr: ErrMalformedCode},
		{name: "off keyboard", pos: 0, code: "0606", wantErr: ErrUnknownCode},
		{name: "already locked elsewhere", pos: 3, code: "0101", wantErr: ErrDuplicateCode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := base.Lock(kb, tt.pos, tt.code)
			require.ErrorIs(t, err, ErrBadLock)
			require.ErrorIs(t, err, tt.wantErr)
			require.NotErrorIs(t, err, ErrBadGuess)
			require.Equal(t, base, l, "a refused lock changes nothing")
		})
	}
	same, err := base.Lock(kb, 1, "0101")
	require.NoError(t, err, "relocking the same code in place is fine")
	require.Equal(t, base, same)
	for _, pos := range []int{-1, 6} {
		l, err := base.Unlock(pos)
		require.ErrorIs(t, err, ErrBadPosition)
		require.Equal(t, base, l)
	}
}
