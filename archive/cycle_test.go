package archive_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/retention"
)

// TestWatermarkCache: a lost cache is restored from the manifest; a
// disagreeing one is reported and the manifest wins.
func TestWatermarkCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "w")
	all := appendN(t, s, 0, 10)
	a := newArchiver(t, c, newStore(t, "fs"), nil)
	pol := archive.Policy{Queue: q, Stream: "w", Keep: keep(4)}
	_, err := a.Cycle(ctx, pol)
	require.NoError(t, err)

	// Lost: the key is deleted.
	had, err := archive.ClearWatermark(ctx, s)
	require.NoError(t, err)
	require.True(t, had)
	st, err := a.Status(ctx, q, "w")
	require.NoError(t, err)
	require.True(t, st.CacheMismatch, "status reports the missing cache")
	merged, err := a.Reader(q, "w").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, all, ids(merged), "reads do not need the cache")
	res, err := a.Cycle(ctx, pol)
	require.NoError(t, err)
	require.True(t, res.Cache.Restored)
	require.False(t, res.Cache.Mismatch)
	w, ok, err := archive.Watermark(ctx, s)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, all[5], w)

	// Disagreeing: another value is cached (here: an older W).
	require.NoError(t, archive.SetWatermark(ctx, s, all[1]))
	st, err = a.Status(ctx, q, "w")
	require.NoError(t, err)
	require.True(t, st.CacheMismatch)
	require.Equal(t, all[1], st.Cached)
	require.Equal(t, all[5], st.Watermark)
	merged, err = a.Reader(q, "w").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, all, ids(merged), "the manifest, not the cache, places the seam")
	res, err = a.Cycle(ctx, pol)
	require.NoError(t, err)
	require.True(t, res.Cache.Mismatch)
	require.Equal(t, all[1], res.Cache.Cached)
	require.Equal(t, all[5], res.Cache.Manifest)
	w, _, err = archive.Watermark(ctx, s)
	require.NoError(t, err)
	require.Equal(t, all[5], w, "the manifest wins")

	// A garbage cache value is a disagreement too.
	_, err = rawcmd.Do(ctx, c, "SET", "emq:{"+q+"}:stream:w:archived", "garbage")
	require.NoError(t, err)
	res, err = a.Cycle(ctx, pol)
	require.NoError(t, err)
	require.True(t, res.Cache.Mismatch)
	w, _, err = archive.Watermark(ctx, s)
	require.NoError(t, err)
	require.Equal(t, all[5], w)

	// A cache with no manifest behind it (a new store) is cleared.
	other := newArchiver(t, c, newStore(t, "fs"), nil)
	res, err = other.Cycle(ctx, archive.Policy{Queue: q, Stream: "w", Keep: keep(100)})
	require.NoError(t, err)
	require.True(t, res.Cache.Mismatch)
	_, ok, err = archive.Watermark(ctx, s)
	require.NoError(t, err)
	require.False(t, ok)
}

// TestStoreFailureAbortsBeforeTrim: a store that cannot be written (a
// read-only directory standing in for a full disk; an object store that is
// down) aborts the cycle before any trim: over-retention, never loss.
func TestStoreFailureAbortsBeforeTrim(t *testing.T) {
	t.Parallel()
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := newClient(t)
			q := echomqtest.Queue(t)
			s := c.Stream(q, "fragile")
			appendN(t, s, 0, 12)
			var store archive.Store
			var fail, heal func()
			dir := t.TempDir()
			fs, err := fsstore.New(dir)
			require.NoError(t, err)
			store = fs
			if kind == "lease" {
				store = leaseOnly{fs}
			}
			fail = func() { heal = makeReadOnly(t, dir) }
			a := newArchiver(t, c, store, nil)
			pol := archive.Policy{Queue: q, Stream: "fragile", Keep: keep(8)}
			_, err = a.Cycle(ctx, pol)
			require.NoError(t, err)
			appendN(t, s, 12, 6)
			all := liveAndArchived(t, a, q, "fragile")
			before := liveIDs(t, s)
			cacheBefore, _, err := archive.Watermark(ctx, s)
			require.NoError(t, err)

			fail()
			res, err := a.Cycle(ctx, pol)
			require.Error(t, err)
			require.Zero(t, res.Trimmed)
			require.Equal(t, before, liveIDs(t, s), "nothing was trimmed")
			cacheAfter, _, err := archive.Watermark(ctx, s)
			require.NoError(t, err)
			require.Equal(t, cacheBefore, cacheAfter, "W did not move")

			heal()
			res, err = a.Cycle(ctx, pol)
			require.NoError(t, err)
			require.Equal(t, int64(6), res.Folded)
			require.Equal(t, all, liveAndArchived(t, a, q, "fragile"), "the next cycle archives what the failed one could not")
		})
	}
}

func liveAndArchived(t *testing.T, a *archive.Archiver, q, name string) []echomq.ID {
	t.Helper()
	evs, err := a.Reader(q, name).Read(context.Background(), echomq.All, nil)
	require.NoError(t, err)
	return ids(evs)
}

// TestSeveralStreamsAndQueues: one store holds several streams of several
// queues, each with its own manifest and watermark.
func TestSeveralStreamsAndQueues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q1, q2 := echomqtest.Queue(t), echomqtest.Queue(t)
	store := newStore(t, "fs")
	var pols []archive.Policy
	want := map[archive.StreamRef][]echomq.ID{}
	for i, ref := range []archive.StreamRef{{q1, "a"}, {q1, "b"}, {q2, "a"}, {q2, "c.d"}} {
		want[ref] = appendN(t, c.Stream(ref.Queue, ref.Stream), 0, 5+i)
		pols = append(pols, archive.Policy{Queue: ref.Queue, Stream: ref.Stream, Keep: keep(int64(i))})
	}
	a := newArchiver(t, c, store, &archive.Config{Policies: pols})
	res, err := a.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(5+6+7+8-0-1-2-3), res.Folded)
	refs, err := archive.Streams(ctx, store)
	require.NoError(t, err)
	require.Len(t, refs, 4)
	for i, p := range pols {
		ref := archive.StreamRef{Queue: p.Queue, Stream: p.Stream}
		require.Contains(t, refs, ref)
		require.Equal(t, want[ref], liveAndArchived(t, a, p.Queue, p.Stream), ref.String())
		w, ok, err := archive.Watermark(ctx, c.Stream(p.Queue, p.Stream))
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, want[ref][len(want[ref])-1-i], w, ref.String())
	}
}

// TestAgoPolicy: an Ago rule folds what is older than the age at the
// archiver's clock.
func TestAgoPolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "aged")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clk := newFixedClock(t0)
	m, err := echomq.NewMinter(9, clk.Now)
	require.NoError(t, err)
	var all []echomq.ID
	for i := range 10 {
		all = append(all, appendAt(t, s, clk, m, t0.Add(time.Duration(i)*time.Hour), i))
	}
	now := newFixedClock(t0.Add(12 * time.Hour))
	a := newArchiver(t, c, newStore(t, "fs"), &archive.Config{Clock: now.Now})
	pol := archive.Policy{Queue: q, Stream: "aged", Keep: retention.Ago(6 * time.Hour)}
	res, err := a.Cycle(ctx, pol)
	require.NoError(t, err)
	require.Equal(t, int64(6), res.Folded, "hours 0..5 are older than 12h-6h")
	require.Equal(t, all[5], res.Watermark)
	require.Equal(t, all[6:], liveIDs(t, s))
	now.Add(2 * time.Hour)
	res, err = a.Cycle(ctx, pol)
	require.NoError(t, err)
	require.Equal(t, int64(2), res.Folded)
	require.Equal(t, all, liveAndArchived(t, a, q, "aged"))
	res, err = a.Cycle(ctx, pol)
	require.NoError(t, err)
	require.Zero(t, res.Folded, "nothing new to fold")
	require.Zero(t, res.Trimmed)
}

// TestLocked: a second archiver of the same stream is refused while the
// first holds its lock (the store's flock, or the engine lease for a
// store without one), and nothing is written.
func TestLocked(t *testing.T) {
	t.Parallel()
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := newClient(t)
			q := echomqtest.Queue(t)
			s := c.Stream(q, "contended")
			appendN(t, s, 0, 5)
			store := newStore(t, kind)
			var release func()
			if l, ok := store.(archive.Locker); ok {
				unlock, err := l.Lock(ctx, "queue="+q+"/stream=contended/lock")
				require.NoError(t, err)
				release = func() { require.NoError(t, unlock()) }
			} else {
				_, err := rawcmd.Do(ctx, c, "SET", "emq:{"+q+"}:stream:contended:archiver", "someone-else", "PX", "60000")
				require.NoError(t, err)
				release = func() {
					_, err := rawcmd.Do(ctx, c, "DEL", "emq:{"+q+"}:stream:contended:archiver")
					require.NoError(t, err)
				}
			}
			a := newArchiver(t, c, store, nil)
			pol := archive.Policy{Queue: q, Stream: "contended", Keep: keep(0)}
			_, err := a.Cycle(ctx, pol)
			require.ErrorIs(t, err, archive.ErrLocked)
			var le *archive.LockedError
			require.ErrorAs(t, err, &le)
			require.Len(t, liveIDs(t, s), 5)
			_, err = a.GC(ctx, q, "contended", nil)
			require.ErrorIs(t, err, archive.ErrLocked)
			release()
			res, err := a.Cycle(ctx, pol)
			require.NoError(t, err)
			require.Equal(t, int64(5), res.Folded)
			n, err := rawcmd.Do(ctx, c, "EXISTS", "emq:{"+q+"}:stream:contended:archiver")
			require.NoError(t, err)
			require.Equal(t, int64(0), n, "the lease is given back")
		})
	}
}

// TestConflict: when another archiver commits the next manifest
// generation first, the cycle fails with a ConflictError and trims
// nothing; its segment is an orphan.
func TestConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "raced")
	appendN(t, s, 0, 6)
	store := newStore(t, "fs")
	a := newArchiver(t, c, store, &archive.Config{OnStep: func(ev archive.StepEvent) {
		if ev.Step == archive.StepSegmentWritten {
			// Another archiver commits generation 1 meanwhile.
			b, err := os.ReadFile(os.DevNull)
			require.NoError(t, err)
			require.NoError(t, store.Put(ctx, "queue="+q+"/stream=raced/manifests/00000000000000000001.json", b, &archive.PutOpts{IfAbsent: true}))
		}
	}})
	res, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: "raced", Keep: keep(2)})
	require.ErrorIs(t, err, archive.ErrConflict)
	require.Zero(t, res.Trimmed)
	require.Len(t, liveIDs(t, s), 6)
	_, ok, err := archive.Watermark(ctx, s)
	require.NoError(t, err)
	require.False(t, ok)
	// The foreign manifest is garbage here: reads refuse it loudly.
	_, err = a.Reader(q, "raced").Read(ctx, echomq.All, nil)
	require.ErrorIs(t, err, archive.ErrCorrupt)
}

// TestPausedLeaseHolderStops: an archiver whose engine lease expired
// mid-cycle (a pause longer than the TTL) stops before its commit.
func TestPausedLeaseHolderStops(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "paused")
	appendN(t, s, 0, 6)
	store := newStore(t, "lease")
	a := newArchiver(t, c, store, &archive.Config{OnStep: func(ev archive.StepEvent) {
		if ev.Step == archive.StepSegmentWritten {
			// The lease is taken over while this archiver is "paused".
			_, err := rawcmd.Do(ctx, c, "SET", "emq:{"+q+"}:stream:paused:archiver", "usurper")
			require.NoError(t, err)
		}
	}})
	_, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: "paused", Keep: keep(0)})
	require.ErrorIs(t, err, archive.ErrLocked)
	require.Len(t, liveIDs(t, s), 6)
	m, err := archive.LoadManifest(ctx, store, q, "paused")
	require.NoError(t, err)
	require.Zero(t, m.Generation, "nothing committed")
	v, err := rawcmd.Do(ctx, c, "GET", "emq:{"+q+"}:stream:paused:archiver")
	require.NoError(t, err)
	require.Equal(t, "usurper", v, "another holder's lease is left alone")
}
