package codemojex

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/tables"
)

// TestPruneSessions: expired sessions are deleted from the engine; live
// ones stay and keep working.
func TestPruneSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, clk := setup(t)
	_, old, err := e.SignIn(ctx, Identity{Provider: "dev", Subject: "old"})
	require.NoError(t, err)
	clk.add(29 * 24 * time.Hour)
	_, fresh, err := e.SignIn(ctx, Identity{Provider: "dev", Subject: "fresh"})
	require.NoError(t, err)
	clk.add(2 * 24 * time.Hour) // old is 31 days old, fresh 2
	n, err := e.PruneSessions(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	keys, err := tables.New(e.client, e.queue, tableSessions).Keys(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 1, "only the live session is left in the engine")
	_, err = e.Authenticate(ctx, old)
	require.ErrorIs(t, err, ErrUnauthorized)
	_, err = e.Authenticate(ctx, fresh)
	require.NoError(t, err)
	n, err = e.PruneSessions(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}
