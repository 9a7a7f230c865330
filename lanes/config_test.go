package lanes_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// TestNewBadConfig: knobs above their bounds are refused by New before any
// I/O (a nil client is fine: New does none).
func TestNewBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []lanes.Config{
		{MaxPayload: lanes.MaxPayloadLimit + 1},
		{MaxAttempts: lanes.MaxAttemptsMax + 1},
		{History: lanes.MaxHistory + 1},
	} {
		q, err := lanes.New(nil, "q", &cfg)
		require.ErrorIs(t, err, echomq.ErrInvalidArgument, "%+v", cfg)
		require.Nil(t, q)
	}
	_, err := lanes.New(nil, "q", nil)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument, "a nil client is refused, not a panic")
	_, err = lanes.New(connect(t, echomqtest.Shared(t).URL()), "q", &lanes.Config{MaxPayload: lanes.MaxPayloadLimit})
	require.NoError(t, err)
}
