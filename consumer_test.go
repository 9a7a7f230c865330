package echomq_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/rawcmd"
)

// TestConsumerDeliversAll: every appended entry is delivered once, in mint
// order, with its receipt, payload, group and Attempts 1; afterwards nothing
// is pending.
func TestConsumerDeliversAll(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ids := e.append(t, 250)
	rec := &deliveryLog{}
	r := startConsumer(t, e.c, e.cfg("g", "c1", rec.handle))
	waitFor(t, "all delivered", func() bool { return len(rec.distinct()) == len(ids) })
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	got := rec.deliveries()
	require.Len(t, got, len(ids))
	for i, d := range got {
		require.Equal(t, ids[i], d.ID, "mint order")
		require.Equal(t, ids[i].EntryID(), d.Entry)
		require.Equal(t, echomq.F("n", itoa(i)), d.Fields, "payload without the id field")
		require.Equal(t, int64(1), d.Attempts)
		require.Equal(t, "g", d.Group)
		require.Equal(t, "events", d.Stream)
		require.Equal(t, "c1", d.Consumer)
	}
	st := r.halt(t)
	require.Equal(t, int64(len(ids)), st.Delivered)
	require.Equal(t, int64(len(ids)), st.Acked)
}

// TestConsumerFailureRedelivered: a failing entry comes back with the same
// id and increasing Attempts, after newer entries; an acked entry never
// comes back.
func TestConsumerFailureRedelivered(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ids := e.append(t, 2)
	rec := &deliveryLog{fail: func(d echomq.Delivery) error {
		if d.ID == ids[0] && d.Attempts < 3 {
			return errors.New("not yet")
		}
		return nil
	}}
	cfg := e.cfg("g", "c1", rec.handle)
	cfg.MinIdle = 150 * time.Millisecond
	r := startConsumer(t, e.c, cfg)
	waitFor(t, "third attempt", func() bool { return len(rec.of(ids[0])) == 3 })
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	more := e.append(t, 1)
	waitFor(t, "later entry", func() bool { return len(rec.of(more[0])) == 1 })
	st := r.halt(t)

	var attempts []int64
	for _, d := range rec.of(ids[0]) {
		attempts = append(attempts, d.Attempts)
	}
	require.Equal(t, []int64{1, 2, 3}, attempts)
	require.Len(t, rec.of(ids[1]), 1, "an acked entry is never redelivered")
	got := rec.deliveries()
	require.Equal(t, ids[1], got[1].ID, "the retry comes after the newer entry")
	require.Equal(t, int64(2), st.Failed)
	require.Equal(t, int64(2), st.Reclaimed)
}

// TestConsumerPanic: a panicking handler does not stop the consumer; the
// entry is delivered again and the panic counted.
func TestConsumerPanic(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ids := e.append(t, 3)
	rec := &deliveryLog{fail: func(d echomq.Delivery) error {
		if d.ID == ids[0] && d.Attempts == 1 {
			panic("boom")
		}
		return nil
	}}
	cfg := e.cfg("g", "c1", rec.handle)
	cfg.MinIdle = 150 * time.Millisecond
	r := startConsumer(t, e.c, cfg)
	waitFor(t, "redelivered after the panic", func() bool { return len(rec.of(ids[0])) == 2 })
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	st := r.halt(t)
	require.Equal(t, int64(1), st.Panics)
	require.Equal(t, int64(1), st.Failed)
	require.Len(t, rec.distinct(), 3)
}

// TestConsumerConcurrency: Concurrency handlers run at once.
func TestConsumerConcurrency(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	e.append(t, 8)
	var now, peak atomic.Int64
	release := make(chan struct{})
	h := func(ctx context.Context, _ echomq.Delivery) error {
		n := now.Add(1)
		defer now.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}
	cfg := e.cfg("g", "c1", h)
	cfg.Concurrency = 4
	cfg.MinIdle = 10 * time.Second
	r := startConsumer(t, e.c, cfg)
	waitFor(t, "four handlers at once", func() bool { return peak.Load() == 4 })
	close(release)
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	require.Equal(t, int64(8), r.halt(t).Acked)
}

// TestConsumerHandlerDeadline: a handler's context ends before a peer can
// reclaim its entry.
func TestConsumerHandlerDeadline(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ids := e.append(t, 1)
	const minIdle = 300 * time.Millisecond
	var ended atomic.Int64
	slow := func(ctx context.Context, d echomq.Delivery) error {
		dl, ok := ctx.Deadline()
		if !ok || time.Until(dl) > minIdle {
			t.Errorf("handler deadline %v is not within MinIdle", dl)
		}
		<-ctx.Done()
		ended.CompareAndSwap(0, time.Now().UnixNano())
		return ctx.Err()
	}
	cfg := e.cfg("g", "slow", slow)
	cfg.MinIdle = minIdle
	cfg.MaxDeliveries = -1
	startConsumer(t, e.c, cfg)
	waitFor(t, "slow consumer holds it", func() bool { return e.pending(t, "g") == 1 })

	var reclaimed atomic.Int64
	peer := e.cfg("g", "peer", func(_ context.Context, d echomq.Delivery) error {
		reclaimed.CompareAndSwap(0, time.Now().UnixNano())
		return nil
	})
	peer.MinIdle = minIdle
	startConsumer(t, e.c, peer)
	waitFor(t, "peer reclaimed it", func() bool { return reclaimed.Load() != 0 })
	require.NotZero(t, ended.Load())
	require.Less(t, ended.Load(), reclaimed.Load(), "the handler's context ended before the peer got the entry")
	_ = ids
}

// TestConsumerRunTwice: Run refuses to run twice at once.
func TestConsumerRunTwice(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	r := startConsumer(t, e.c, e.cfg("g", "c1", (&deliveryLog{}).handle))
	waitFor(t, "running", func() bool { return e.pending(t, "g") == 0 })
	err := r.c.Run(context.Background())
	require.ErrorIs(t, err, echomq.ErrRunning)
	r.halt(t)
}

// TestConsumerWrongType: a key of another type fails Run loudly and is
// left as it was.
func TestConsumerWrongType(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	_, err := rawcmd.Do(ctx, e.c, "SET", e.stream.Key(), "not a stream")
	require.NoError(t, err)
	cfg := e.cfg("g", "c1", (&deliveryLog{}).handle)
	c, err := e.c.Consumer(&cfg)
	require.NoError(t, err)
	err = c.Run(context.Background())
	require.ErrorIs(t, err, echomq.ErrWrongType)
	v, err := rawcmd.Do(ctx, e.c, "GET", e.stream.Key())
	require.NoError(t, err)
	require.Equal(t, "not a stream", v)
}

// TestConsumerEmbedded: the consumer works on the embedded engine too.
func TestConsumerEmbedded(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: embedded.URL})
	e := &groupEnv{c: c, queue: "q", stream: c.Stream("q", "events")}
	ids := e.append(t, 3)
	rec := &deliveryLog{fail: func(d echomq.Delivery) error {
		if d.ID == ids[1] {
			return errors.New("poison")
		}
		return nil
	}}
	cfg := e.cfg("g", "c1", rec.handle)
	cfg.MinIdle = 100 * time.Millisecond
	cfg.MaxDeliveries = 2
	r := startConsumer(t, c, cfg)
	waitFor(t, "dead-lettered", func() bool { return r.c.Stats().Dead == 1 })
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	r.halt(t)
	dls, err := e.stream.DeadLetters().List(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, dls, 1)
	require.Equal(t, ids[1], dls[0].Origin)
	require.Equal(t, int64(2), dls[0].Attempts)
}
