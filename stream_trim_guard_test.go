package echomq_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// TestTrimGuard is the scenario of a stream under archive control: the
// watermark at entry 15 of 20, then 10 more appended. An unforced trim is
// refused and keeps all 30; a forced one reports the unarchived entries it
// destroys.
func TestTrimGuard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := serverTarget(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "ev")
	var ids []echomq.ID
	for i := range 20 {
		id, err := s.Append(ctx, echomq.F("n", itoa(i)), nil)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	require.NoError(t, archive.SetWatermark(ctx, s, ids[14]))
	for i := range 10 {
		id, err := s.Append(ctx, echomq.F("n", itoa(20+i)), nil)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	length := func() int64 {
		info, err := s.Info(ctx)
		require.NoError(t, err)
		return info.Length
	}

	for _, spec := range []echomq.TrimSpec{echomq.MaxLen(0), echomq.MaxLen(0).Exact(), echomq.MinEntry(ids[29].EntryID()).Exact()} {
		_, err := s.Trim(ctx, spec)
		require.ErrorIs(t, err, echomq.ErrArchived, spec.String())
		var ae *echomq.ArchivedError
		require.ErrorAs(t, err, &ae)
		require.Equal(t, ids[14], ae.Watermark)
		require.False(t, ae.Leased)
	}
	require.EqualValues(t, 30, length(), "an unforced trim keeps all 30")

	// Forced to entry 18: 17 removed, of which entries 16 and 17 were
	// never archived.
	r, err := s.Trim(ctx, echomq.MinEntry(ids[17].EntryID()).Exact().Force())
	require.NoError(t, err)
	require.Equal(t, echomq.TrimResult{Removed: 17, Unarchived: 2, Watermark: ids[14]}, r)
	// Forced to nothing: the other 13, all unarchived.
	r, err = s.Trim(ctx, echomq.MaxLen(0).Exact().Force())
	require.NoError(t, err)
	require.Equal(t, echomq.TrimResult{Removed: 13, Unarchived: 13, Watermark: ids[14]}, r)
	require.EqualValues(t, 0, length())

	// A stream with no watermark trims as before, unforced.
	plain := c.Stream(q, "plain")
	for i := range 5 {
		_, err := plain.Append(ctx, echomq.F("n", itoa(i)), nil)
		require.NoError(t, err)
	}
	r, err = plain.Trim(ctx, echomq.MaxLen(2).Exact())
	require.NoError(t, err)
	require.Equal(t, echomq.TrimResult{Removed: 3}, r)
}

// TestTrimGuardLease: an archiver's lease without a watermark (its first
// cycle is folding) also refuses; forced, every removed entry counts as
// unarchived.
func TestTrimGuardLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := serverTarget(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "ev")
	for i := range 4 {
		_, err := s.Append(ctx, echomq.F("n", itoa(i)), nil)
		require.NoError(t, err)
	}
	_, err := rawcmd.Do(ctx, c, "SET", s.Key()+":archiver", "token", "PX", "60000")
	require.NoError(t, err)
	_, err = s.Trim(ctx, echomq.MaxLen(1).Exact())
	var ae *echomq.ArchivedError
	require.ErrorAs(t, err, &ae)
	require.True(t, ae.Leased)
	r, err := s.Trim(ctx, echomq.MaxLen(1).Exact().Force())
	require.NoError(t, err)
	require.Equal(t, echomq.TrimResult{Removed: 3, Unarchived: 3}, r)
}
