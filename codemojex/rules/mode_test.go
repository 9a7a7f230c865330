package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMode(t *testing.T) {
	t.Parallel()
	crack := Score(testSecret, Guess(testSecret))
	near := Score(testSecret, Guess{"0101", "0000", "0202", "0303", "0404", "0505"})
	tests := []struct {
		in        string
		mode      Mode
		feedback  bool
		committed bool
		endsCrack bool
	}{
		{in: "classic", mode: Classic, feedback: true, endsCrack: true},
		{in: "blind", mode: Blind, committed: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			m, err := ParseMode(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.mode, m)
			require.Equal(t, tt.in, m.String())
			require.Equal(t, tt.feedback, m.Feedback())
			require.Equal(t, tt.committed, m.Committed())
			require.Equal(t, tt.endsCrack, m.EndsOn(crack))
			require.False(t, m.EndsOn(near), "only a 600 ends a game early")
		})
	}
	for _, bad := range []string{"", "Classic", "golden", "sealed", " blind"} {
		m, err := ParseMode(bad)
		require.ErrorIs(t, err, ErrUnknownMode, bad)
		require.Empty(t, m)
	}
}
