package projection

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// appendN appends n events spread over the streams round-robin.
func appendN(t testing.TB, ctx context.Context, n int, streams ...*echomq.Stream) {
	t.Helper()
	for i := range n {
		_, err := streams[i%len(streams)].Append(ctx, echomq.F("room", "r"+strconv.Itoa(i%4), "points", strconv.Itoa(i%7*10)), nil)
		require.NoError(t, err)
	}
}

// TestLiveCatchUp: catch-up folds exactly the new entries, counted, and
// the state equals a rebuild and a one-shot fold.
func TestLiveCatchUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a, c := b.stream("a"), b.stream("c")
	l, err := NewLive(CountBy("room"), &LiveConfig{PageSize: 7}, a, c)
	require.NoError(t, err)

	n, err := l.CatchUp(b.ctx)
	require.NoError(t, err)
	require.Zero(t, n)

	appendN(t, b.ctx, 53, a, c)
	n, err = l.CatchUp(b.ctx)
	require.NoError(t, err)
	require.Equal(t, 53, n)
	for _, k := range []int{1, 9, 0, 30} {
		appendN(t, b.ctx, k, c, a)
		n, err = l.CatchUp(b.ctx)
		require.NoError(t, err)
		require.Equal(t, k, n)
	}
	require.Equal(t, int64(93), l.Applied())

	got, cp, err := l.State(b.ctx)
	require.NoError(t, err)
	want, err := Fold(b.ctx, All, CountBy("room"), a, c)
	require.NoError(t, err)
	require.Equal(t, want, got)
	last, ok := cp.Get(a.Key())
	require.True(t, ok)
	require.Equal(t, readAll(t, b.ctx, a)[len(readAll(t, b.ctx, a))-1].Entry, last)

	n, err = l.Rebuild(b.ctx)
	require.NoError(t, err)
	require.Equal(t, 93, n)
	rebuilt, cp2, err := l.State(b.ctx)
	require.NoError(t, err)
	require.Equal(t, got, rebuilt)
	require.Equal(t, cp, cp2)
}

// TestLiveResume: a second process resumes from the snapshot and folds only
// what came after it; a changed version, or changed streams, rebuild.
func TestLiveResume(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a, c := b.stream("a"), b.stream("c")
	store := EngineStore(b.client, b.queue, "rooms")
	first, err := NewLive(CountBy("room"), &LiveConfig{Store: store}, a, c)
	require.NoError(t, err)
	start, err := first.Open(b.ctx)
	require.NoError(t, err)
	require.Equal(t, StartFresh, start)
	appendN(t, b.ctx, 40, a, c)
	n, err := first.CatchUp(b.ctx) // saves
	require.NoError(t, err)
	require.Equal(t, 40, n)

	appendN(t, b.ctx, 6, a, c)
	second, err := NewLive(CountBy("room"), &LiveConfig{Store: store}, a, c)
	require.NoError(t, err)
	start, err = second.Open(b.ctx)
	require.NoError(t, err)
	require.Equal(t, StartResumed, start)
	require.Equal(t, int64(40), second.Applied())
	n, err = second.CatchUp(b.ctx)
	require.NoError(t, err)
	require.Equal(t, 6, n, "resumed from the snapshot: only the new entries are folded")
	want, err := Fold(b.ctx, All, CountBy("room"), a, c)
	require.NoError(t, err)
	got, _, err := second.State(b.ctx)
	require.NoError(t, err)
	require.Equal(t, want, got)

	// A new definition version is rebuilt, not resumed.
	p := CountBy("room")
	p.Version++
	third, err := NewLive(p, &LiveConfig{Store: store}, a, c)
	require.NoError(t, err)
	start, err = third.Open(b.ctx)
	require.NoError(t, err)
	require.Equal(t, StartRebuild, start)
	n, err = third.CatchUp(b.ctx)
	require.NoError(t, err)
	require.Equal(t, 46, n)
	got, _, err = third.State(b.ctx)
	require.NoError(t, err)
	require.Equal(t, want, got)

	// Its snapshot replaced the old one: the old version now rebuilds.
	fourth, err := NewLive(CountBy("room"), &LiveConfig{Store: store}, a, c)
	require.NoError(t, err)
	start, err = fourth.Open(b.ctx)
	require.NoError(t, err)
	require.Equal(t, StartRebuild, start)

	// Other streams: rebuild.
	fifth, err := NewLive(p, &LiveConfig{Store: store}, a)
	require.NoError(t, err)
	start, err = fifth.Open(b.ctx)
	require.NoError(t, err)
	require.Equal(t, StartRebuild, start)
}

// TestLiveRun follows two streams live and ends equal to a rebuild; the
// final snapshot on stop resumes with nothing to fold.
func TestLiveRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a, c := b.stream("a"), b.stream("c")
	appendN(t, b.ctx, 20, a, c)
	store := EngineStore(b.client, b.queue, "run")
	saved := make(chan int64, 100)
	cfg := &LiveConfig{Store: store, SnapshotEvery: 1, OnSnapshot: func(_ Checkpoint, applied int64) {
		select {
		case saved <- applied:
		default:
		}
	}}
	l, err := NewLive(Stats("points", "room"), cfg, a, c)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(b.ctx)
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	require.Equal(t, int64(20), echomqtest.Recv(t, saved, 30*time.Second, "the catch-up's snapshot"))

	require.ErrorIs(t, l.Run(ctx), ErrRunning)
	appendN(t, b.ctx, 25, c, a)
	for applied := int64(0); applied < 45; {
		applied = echomqtest.Recv(t, saved, 30*time.Second, "a snapshot of the appended events")
	}
	cancel()
	require.NoError(t, echomqtest.Recv(t, done, 30*time.Second, "the live projection to stop"))

	want, err := Fold(b.ctx, All, Stats("points", "room"), a, c)
	require.NoError(t, err)
	got, _, err := l.State(b.ctx)
	require.NoError(t, err)
	require.Equal(t, want, got)
	n, err := l.Rebuild(b.ctx)
	require.NoError(t, err)
	require.Equal(t, 45, n)
	rebuilt, _, err := l.State(b.ctx)
	require.NoError(t, err)
	require.Equal(t, got, rebuilt)

	again, err := NewLive(Stats("points", "room"), &LiveConfig{Store: store}, a, c)
	require.NoError(t, err)
	n, err = again.CatchUp(b.ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}

// followFails is a stream whose live reads fail.
type followFails struct{ *echomq.Stream }

func (f followFails) Follow(context.Context, *echomq.FollowOpts) iter.Seq2[echomq.Event, error] {
	return func(yield func(echomq.Event, error) bool) { yield(echomq.Event{}, errors.New("connection lost")) }
}

// TestLiveRunErrors: a read failure ends Run with the error; a state
// folded before it stays folded and saved.
func TestLiveRunErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.stream("s")
	appendN(t, b.ctx, 5, s)
	store := &memStore{}
	l, err := NewLive(Count(), &LiveConfig{Store: store}, followFails{s})
	require.NoError(t, err)
	err = l.Run(b.ctx)
	require.ErrorContains(t, err, "connection lost")
	require.Equal(t, int64(5), l.Applied())
	require.Len(t, store.all(), 1)

	l, err = NewLive(Count(), nil, s, failingSource{"broken"})
	require.NoError(t, err)
	require.ErrorContains(t, l.Run(b.ctx), "boom")
}
