package codemojex

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Every stream has a lock, in the order of Streams, and the ledger comes
// last (a settlement appends it after game-settled and game-revealed).
func TestStreamLockOrder(t *testing.T) {
	t.Parallel()
	var e Engine
	require.Len(t, Streams, len(e.streamMu))
	require.Len(t, streamIndex, len(Streams))
	require.Equal(t, len(Streams)-1, streamIndex[StreamLedger])
	require.Less(t, streamIndex[StreamGuessScored], streamIndex[StreamGameSettled])
	require.Less(t, streamIndex[StreamGameSettled], streamIndex[StreamGameRevealed])
}
