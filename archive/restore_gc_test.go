package archive_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// TestRestore re-appends an archived history into a new stream, and into
// the original stream after it was lost, entry for entry.
func TestRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	src := c.Stream(q, "history")
	appendN(t, src, 0, 25)
	want, err := src.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	var progress []archive.Progress
	a := newArchiver(t, c, newStore(t, "fs"), &archive.Config{SegmentEntries: 6, Progress: func(p archive.Progress) { progress = append(progress, p) }})
	ref := archive.StreamRef{Queue: q, Stream: "history"}
	_, err = a.Cycle(ctx, archive.Policy{Queue: q, Stream: "history", Keep: keep(5)})
	require.NoError(t, err)
	require.NotEmpty(t, progress)

	// Into a new stream: the whole merged log.
	dst := c.Stream(q, "rebuilt")
	progress = nil
	res, err := a.Restore(ctx, ref, dst, &archive.RestoreOpts{BatchSize: 7})
	require.NoError(t, err)
	require.Equal(t, int64(25), res.Restored)
	require.Equal(t, want[0].ID, res.First)
	require.Equal(t, want[24].ID, res.Last)
	got, err := dst.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, int64(25), progress[len(progress)-1].Done)

	// Into a non-empty destination: refused at the first entry not above
	// its top.
	res, err = a.Restore(ctx, ref, dst, nil)
	require.ErrorIs(t, err, echomq.ErrNonMonotonic)
	require.Zero(t, res.Restored)

	// The engine lost the stream: restore the archived range into it.
	_, err = rawcmd.Do(ctx, c, "DEL", src.Key())
	require.NoError(t, err)
	res, err = a.Restore(ctx, ref, src, &archive.RestoreOpts{Range: echomq.Span(echomq.Unbounded, echomq.At(want[19].ID))})
	require.NoError(t, err)
	require.Equal(t, int64(20), res.Restored)
	got, err = src.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, want[:20], got)
}

// TestGC collects orphan segments and old manifests, sparing young orphans
// above W.
func TestGC(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "gc")
	store := newStore(t, "fs")
	a := newArchiver(t, c, store, &archive.Config{KeepManifests: 2})
	pol := archive.Policy{Queue: q, Stream: "gc", Keep: keep(2)}
	var all []echomq.ID
	for i := range 5 {
		all = append(all, appendN(t, s, 4*i, 4)...)
		_, err := a.Cycle(ctx, pol)
		require.NoError(t, err)
	}
	// Orphans: one at or below W (a cycle that lost), one above (maybe in
	// flight).
	prefix := "queue=" + q + "/stream=gc/"
	dead := prefix + "segments/" + all[1].String() + "-" + all[2].String() + ".parquet"
	young := prefix + "segments/" + all[19].String() + "-" + all[19].String() + ".parquet"
	require.NoError(t, store.Put(ctx, dead, []byte("orphan"), nil))
	require.NoError(t, store.Put(ctx, young, []byte("orphan"), nil))
	_, err := a.GC(ctx, q, "gc", &archive.GCOpts{MinAge: -time.Second})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)

	dry, err := a.GC(ctx, q, "gc", &archive.GCOpts{DryRun: true})
	require.NoError(t, err)
	require.Len(t, dry.Deleted, 1)
	require.Equal(t, dead, dry.Deleted[0].Name)
	_, err = store.Get(ctx, dead)
	require.NoError(t, err, "a dry run deletes nothing")

	res, err := a.GC(ctx, q, "gc", nil)
	require.NoError(t, err)
	require.Len(t, res.Deleted, 1)
	require.Len(t, res.Kept, 1)
	require.Equal(t, young, res.Kept[0].Name)
	res, err = a.GC(ctx, q, "gc", &archive.GCOpts{MinAge: time.Nanosecond})
	require.NoError(t, err)
	require.Len(t, res.Deleted, 1)
	mans, err := store.List(ctx, prefix+"manifests/")
	require.NoError(t, err)
	require.Len(t, mans, 2, "two manifest generations kept")
	require.Equal(t, all, liveAndArchived(t, a, q, "gc"))
}
