package projection

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// flakyStore fails its first saves with a transient (or a permanent)
// error, then keeps snapshots in memory.
type flakyStore struct {
	memStore
	fail     atomic.Int64 // saves left to fail
	err      error
	attempts atomic.Int64
}

func (f *flakyStore) Save(ctx context.Context, b []byte) error {
	f.attempts.Add(1)
	if f.fail.Add(-1) >= 0 {
		return f.err
	}
	return f.memStore.Save(ctx, b)
}

// TestLiveRetriesSnapshots: snapshot writes that fail with a transient
// error are retried with a backoff while folding goes on; the projection
// never loses its place, logs the outage once and its end once, and the
// snapshot that finally lands covers every event.
func TestLiveRetriesSnapshots(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.stream("ev")
	store := &flakyStore{err: &echomq.TransportError{Err: errors.New("connection refused")}}
	store.fail.Store(4)
	log := &echomqtest.Logs{}
	var saved atomic.Int64
	l, err := NewLive(collect(), &LiveConfig{
		Store: store, SnapshotEvery: 5, SnapshotInterval: 20 * time.Millisecond,
		Logger: log.Logger(), OnSnapshot: func(_ Checkpoint, applied int64) { saved.Store(applied) },
	}, s)
	require.NoError(t, err)
	require.NoError(t, l.Start(b.ctx))
	for i := range 30 {
		_, err := s.Append(b.ctx, echomq.Fields{"n", itoa(i)}, nil)
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return saved.Load() == 30 }, 20*time.Second, 10*time.Millisecond,
		"a snapshot of all 30 events landed after the failed ones")
	require.NoError(t, l.Stop(b.ctx))
	require.GreaterOrEqual(t, store.attempts.Load(), int64(5), "the failed saves were retried")
	require.Equal(t, 1, log.Count("engine unavailable; retrying"), "%q", log.Messages())
	require.Equal(t, 1, log.Count("engine back"), "%q", log.Messages())
	require.Equal(t, 1, log.Count("echomq: projection: stopped"))

	// A fresh Live resumes from the snapshot: every event once, in order.
	again, err := NewLive(collect(), &LiveConfig{Store: store}, s)
	require.NoError(t, err)
	st, err := again.Open(b.ctx)
	require.NoError(t, err)
	require.Equal(t, StartResumed, st)
	state, _, err := again.State(b.ctx)
	require.NoError(t, err)
	require.Len(t, state, 30)
	for i, ev := range state {
		require.Equal(t, itoa(i), ev.Fields[1])
	}
}

// TestLiveStopsOnPermanentSnapshotError: a store that refuses a snapshot
// for good ends Run with its error, logged as a permanent stop.
func TestLiveStopsOnPermanentSnapshotError(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.stream("ev")
	full := errors.New("disk full")
	store := &flakyStore{err: full}
	store.fail.Store(1 << 30)
	log := &echomqtest.Logs{}
	l, err := NewLive(collect(), &LiveConfig{Store: store, SnapshotEvery: 1, Logger: log.Logger()}, s)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- l.Run(b.ctx) }()
	_, err = s.Append(b.ctx, echomq.Fields{"n", "1"}, nil)
	require.NoError(t, err)
	select {
	case err := <-done:
		require.ErrorIs(t, err, full)
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not stop on a permanent snapshot error")
	}
	require.Equal(t, 1, log.Count("echomq: projection: stopped on a permanent error"))
	require.Zero(t, log.Count("engine unavailable; retrying"), "a permanent error is no outage")
}

// TestLiveStopsOnPermanentSnapshotErrorWhileFollowing: the same when the
// refused snapshot comes from the followers' folding (the catch-up's
// snapshot landed): Run stops its followers and returns the error.
func TestLiveStopsOnPermanentSnapshotErrorWhileFollowing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.stream("ev")
	_, err := s.Append(b.ctx, echomq.Fields{"n", "1"}, nil)
	require.NoError(t, err)
	full := errors.New("disk full")
	store := &flakyStore{err: full}
	l, err := NewLive(collect(), &LiveConfig{Store: store, SnapshotEvery: 1, Logger: (&echomqtest.Logs{}).Logger()}, s)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- l.Run(b.ctx) }()
	// The catch-up folds the first event and saves it: following begins.
	require.Eventually(t, func() bool { return store.attempts.Load() == 1 }, 20*time.Second, 10*time.Millisecond)
	store.fail.Store(1 << 30)
	_, err = s.Append(b.ctx, echomq.Fields{"n", "2"}, nil)
	require.NoError(t, err)
	select {
	case err := <-done:
		require.ErrorIs(t, err, full)
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not stop on a permanent snapshot error while following")
	}
}
