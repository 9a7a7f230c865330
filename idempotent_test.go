package echomq_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

func onceDelivery(t *testing.T, e *groupEnv) echomq.Delivery {
	id := mint(t, e.c, e.queue, echomq.BrandEvent)
	return echomq.Delivery{Event: echomq.Event{ID: id, Entry: id.EntryID()}, Attempts: 1, Queue: e.queue, Stream: "events", Group: "g"}
}

// TestOnceSkipsHandled: a record handled successfully is skipped after; the
// marker is registered under emq:{q}:seen:<scope>:<id> with the ttl.
func TestOnceSkipsHandled(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	var calls atomic.Int64
	h, err := echomq.Once(e.c, e.queue, "mail", time.Hour, func(context.Context, echomq.Delivery) error {
		calls.Add(1)
		return nil
	})
	require.NoError(t, err)
	d := onceDelivery(t, e)
	require.NoError(t, h(ctx, d))
	require.NoError(t, h(ctx, d))
	require.Equal(t, int64(1), calls.Load())
	key := "emq:{" + e.queue + "}:seen:mail:" + d.ID.String()
	v, err := rawcmd.Do(ctx, e.c, "GET", key)
	require.NoError(t, err)
	require.Equal(t, "done", v)
	ttl, err := rawcmd.Do(ctx, e.c, "PTTL", key)
	require.NoError(t, err)
	require.Greater(t, ttl.(int64), int64(59*time.Minute/time.Millisecond))

	// Another scope handles the same record on its own.
	other, err := echomq.Once(e.c, e.queue, "audit", time.Hour, func(context.Context, echomq.Delivery) error {
		calls.Add(1)
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, other(ctx, d))
	require.Equal(t, int64(2), calls.Load())
}

// TestOnceFailureRollsBack: an error or a panic gives the lease back, so
// the next delivery runs the handler again.
func TestOnceFailureRollsBack(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	var calls atomic.Int64
	h, err := echomq.Once(e.c, e.queue, "s", time.Hour, func(context.Context, echomq.Delivery) error {
		switch calls.Add(1) {
		case 1:
			return errors.New("transient")
		case 2:
			panic("boom")
		}
		return nil
	})
	require.NoError(t, err)
	d := onceDelivery(t, e)
	require.Error(t, h(ctx, d))
	require.Panics(t, func() { _ = h(ctx, d) })
	require.NoError(t, h(ctx, d))
	require.NoError(t, h(ctx, d))
	require.Equal(t, int64(3), calls.Load())
}

// TestOnceInFlight: two deliveries of one record never run at once; the
// second is refused with ErrInFlight (and stays pending).
func TestOnceInFlight(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	inside := make(chan struct{})
	leave := make(chan struct{})
	h, err := echomq.Once(e.c, e.queue, "s", time.Hour, func(hctx context.Context, _ echomq.Delivery) error {
		close(inside)
		select {
		case <-leave:
			return nil
		case <-hctx.Done(): // the test ended without releasing it
			return hctx.Err()
		}
	})
	require.NoError(t, err)
	d := onceDelivery(t, e)
	done := make(chan error, 1)
	go func() { done <- h(t.Context(), d) }()
	echomqtest.Recv(t, inside, waitTimeout, "the handler to run")
	require.ErrorIs(t, h(ctx, d), echomq.ErrInFlight)
	close(leave)
	require.NoError(t, echomqtest.Recv(t, done, waitTimeout, "the handler to return"))
	require.NoError(t, h(ctx, d), "skipped once done")
}

// TestOnceWithConsumer: a record delivered again after its handler
// succeeded (here: an ack lost on the way) is not handled twice.
func TestOnceWithConsumer(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ids := e.append(t, 3)
	var effects atomic.Int64
	once, err := echomq.Once(e.c, e.queue, "effects", time.Hour, func(context.Context, echomq.Delivery) error {
		effects.Add(1)
		return nil
	})
	require.NoError(t, err)
	rec := &deliveryLog{}
	h := func(ctx context.Context, d echomq.Delivery) error {
		_ = rec.handle(ctx, d)
		if err := once(ctx, d); err != nil {
			return err
		}
		if d.Attempts == 1 {
			return errors.New("ack lost") // the handler ran, the entry stays pending
		}
		return nil
	}
	cfg := e.cfg("g", "c1", h)
	cfg.MinIdle = 100 * time.Millisecond
	startConsumer(t, e.c, cfg)
	waitFor(t, "each delivered twice", func() bool { return len(rec.deliveries()) == 2*len(ids) })
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	require.Equal(t, int64(len(ids)), effects.Load(), "each record's effect ran once")
}

// TestOnceBadInput: bad arguments are refused before any I/O.
func TestOnceBadInput(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	h := (&deliveryLog{}).handle
	for _, tc := range []struct {
		name    string
		c       *echomq.Client
		queue   string
		scope   string
		ttl     time.Duration
		h       echomq.HandlerFunc
		wantErr error
	}{
		{"nil client", nil, e.queue, "s", time.Hour, h, echomq.ErrInvalidArgument},
		{"nil handler", e.c, e.queue, "s", time.Hour, nil, echomq.ErrInvalidArgument},
		{"ttl", e.c, e.queue, "s", 0, h, echomq.ErrInvalidArgument},
		{"queue", e.c, "emq", "s", time.Hour, h, echomq.ErrInvalidName},
		{"scope", e.c, e.queue, "a:b", time.Hour, h, echomq.ErrInvalidName},
		{"empty scope", e.c, e.queue, "", time.Hour, h, echomq.ErrInvalidName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w, err := echomq.Once(tc.c, tc.queue, tc.scope, tc.ttl, tc.h)
			require.ErrorIs(t, err, tc.wantErr)
			require.Nil(t, w)
		})
	}
}
