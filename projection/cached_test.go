package projection

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// TestCachedServesFromMemory: reads without new entries fold nothing; a new
// entry is folded alone and shows on the next read; a state handed out
// before stays as it was.
func TestCachedServesFromMemory(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a, c := b.stream("a"), b.stream("c")
	appendN(t, b.ctx, 30, a, c)
	cache, err := NewCached(All, CountBy("room"), a, c)
	require.NoError(t, err)

	first, err := cache.Get(b.ctx)
	require.NoError(t, err)
	require.Equal(t, int64(30), first.Total)
	require.Equal(t, CacheStats{Reads: 1, Refolds: 1, Applied: 30}, cache.Stats())
	for range 5 {
		again, err := cache.Get(b.ctx)
		require.NoError(t, err)
		require.Same(t, first, again, "served from memory")
	}
	require.Equal(t, CacheStats{Reads: 6, Hits: 5, Refolds: 1, Applied: 30}, cache.Stats(), "no refold, nothing applied")

	_, err = c.Append(b.ctx, echomq.F("room", "new"), nil)
	require.NoError(t, err)
	next, err := cache.Get(b.ctx)
	require.NoError(t, err)
	require.Equal(t, int64(31), next.Total)
	require.Equal(t, int64(1), next.Per["new"])
	require.Equal(t, CacheStats{Reads: 7, Hits: 5, Refolds: 1, Applied: 31}, cache.Stats(), "only the new entry was folded")
	require.Equal(t, int64(30), first.Total, "an earlier state does not change under its reader")
	want, err := Fold(b.ctx, All, CountBy("room"), a, c)
	require.NoError(t, err)
	require.Equal(t, want, next)

	cache.Invalidate()
	_, err = cache.Get(b.ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), cache.Stats().Refolds)
}

// TestCachedWindows: a fixed window picks up a late entry that lands in it;
// a window relative to now refolds when the clock moves.
func TestCachedWindows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.stream("s")
	for i := range 10 {
		require.NoError(t, s.AppendID(b.ctx, evtAt(t, base, int64(i*10), 1, 0), echomq.F("room", "r")))
	}
	fixed, err := NewCached(Between(base, base.Add(50*time.Millisecond)), Count(), s)
	require.NoError(t, err)
	got, err := fixed.Get(b.ctx)
	require.NoError(t, err)
	require.Equal(t, int64(6), got.Total)
	_, err = fixed.Get(b.ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), fixed.Stats().Hits)

	now := base.Add(100 * time.Millisecond)
	last, err := NewCached(Last(30*time.Millisecond).WithClock(func() time.Time { return now }), Count(), s)
	require.NoError(t, err)
	got, err = last.Get(b.ctx)
	require.NoError(t, err)
	require.Equal(t, int64(3), got.Total) // 70, 80, 90
	_, err = last.Get(b.ctx)
	require.NoError(t, err)
	require.Equal(t, CacheStats{Reads: 2, Hits: 1, Refolds: 1, Applied: 3}, last.Stats())
	now = now.Add(15 * time.Millisecond)
	got, err = last.Get(b.ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), got.Total) // [85, 115] holds 90 only
	require.Equal(t, int64(2), last.Stats().Refolds)
}
