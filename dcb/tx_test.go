package dcb_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/tables"
)

// TestTxAppendTagged: a transaction's tagged append gets its position and
// index entries in the commit, beside the dcb appends of the queue.
func TestTxAppendTagged(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	g := dcb.Tags("game", "G1")
	mustAppend(t, s, nil, ev("opened", g))
	var id echomq.ID
	err := tables.Update(ctx, c, s.Queue(), func(ctx context.Context, tx *tables.Tx) error {
		if err := tx.Put("games", "G1", []byte("closed")); err != nil {
			return err
		}
		var err error
		id, err = tx.AppendTagged(ctx, "closed", echomq.F("by", "ada"), g)
		return err
	}, nil)
	require.NoError(t, err)
	evs, _, err := s.ReadAll(ctx, dcb.Query{{Tags: g}}, 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	require.Equal(t, id, evs[1].ID)
	require.Equal(t, uint64(2), evs[1].Position)
	require.Equal(t, "closed", evs[1].Stream)
	requireIndexed(t, c, s.Queue())

	for _, tags := range [][]string{nil, {"bad"}} {
		err = tables.Update(ctx, c, s.Queue(), func(ctx context.Context, tx *tables.Tx) error {
			_, err := tx.AppendTagged(ctx, "closed", echomq.F("k", "v"), tags)
			return err
		}, nil)
		require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	}
}
