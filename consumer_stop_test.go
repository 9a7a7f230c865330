package echomq_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// TestConsumerGracefulStop: a stop lets the running handler finish and
// acks it, and hands the fetched but unstarted entries back so that a peer
// takes them at once, without counting a delivery.
func TestConsumerGracefulStop(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ids := e.append(t, 5)
	started := make(chan struct{})
	finish := make(chan struct{})
	var calls atomic.Int64
	h := func(ctx context.Context, d echomq.Delivery) error {
		if calls.Add(1) == 1 {
			close(started)
			select {
			case <-finish:
			case <-ctx.Done(): // the grace is over: the consumer cancels the handler
				return ctx.Err()
			}
		}
		return nil
	}
	cfg := e.cfg("g", "c1", h)
	cfg.MinIdle = time.Minute
	r := startConsumer(t, e.c, cfg)
	echomqtest.Recv(t, started, waitTimeout, "the first delivery")
	r.stop()
	close(finish)
	st := r.halt(t)
	require.Equal(t, int64(1), st.Delivered)
	require.Equal(t, int64(1), st.Acked, "the running handler finished and was acked")
	require.Equal(t, int64(4), st.Released)

	rows, err := e.stream.Group("g").Pending(ctx, &echomq.PendingOpts{MinIdle: time.Hour})
	require.NoError(t, err)
	require.Len(t, rows, 4, "released entries look idle for long")
	for i, p := range rows {
		require.Equal(t, ids[i+1].EntryID(), p.Entry)
		require.Equal(t, "c1", p.Consumer)
		require.Equal(t, int64(1), p.Deliveries, "a release is not a delivery")
	}

	rec := &deliveryLog{}
	peer := e.cfg("g", "c2", rec.handle)
	peer.MinIdle = time.Minute // released entries are taken anyway
	startConsumer(t, e.c, peer)
	waitFor(t, "peer took the released entries", func() bool { return len(rec.distinct()) == 4 })
	for _, d := range rec.deliveries() {
		require.Equal(t, int64(2), d.Attempts)
	}
}

// TestConsumerGraceExpires: handlers still running when the grace is over
// see their contexts cancelled; their entries are handed back, not counted
// as failures and never dead-lettered.
func TestConsumerGraceExpires(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	e.append(t, 1)
	started := make(chan struct{})
	h := func(ctx context.Context, d echomq.Delivery) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}
	cfg := e.cfg("g", "c1", h)
	cfg.MinIdle = time.Minute
	cfg.MaxDeliveries = 1
	cfg.Grace = 50 * time.Millisecond
	r := startConsumer(t, e.c, cfg)
	echomqtest.Recv(t, started, waitTimeout, "the first delivery")
	st := r.halt(t)
	require.Equal(t, int64(0), st.Failed)
	require.Equal(t, int64(0), st.Dead)
	require.Equal(t, int64(1), st.Released)
	n, err := e.stream.DeadLetters().Len(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, int64(1), e.pending(t, "g"))
}

// TestConsumerBadConfig: every bad configuration is refused with a typed
// error before anything is written.
func TestConsumerBadConfig(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ok := e.cfg("g", "c1", (&deliveryLog{}).handle)
	for _, tc := range []struct {
		name    string
		mod     func(c *echomq.ConsumerConfig)
		wantErr error
	}{
		{"queue", func(c *echomq.ConsumerConfig) { c.Queue = "emq" }, echomq.ErrInvalidName},
		{"stream", func(c *echomq.ConsumerConfig) { c.Stream = "a:b" }, echomq.ErrInvalidName},
		{"group", func(c *echomq.ConsumerConfig) { c.Group = "" }, echomq.ErrInvalidName},
		{"consumer", func(c *echomq.ConsumerConfig) { c.Name = "a b" }, echomq.ErrInvalidName},
		{"handler", func(c *echomq.ConsumerConfig) { c.Handle = nil }, echomq.ErrInvalidArgument},
		{"zero start", func(c *echomq.ConsumerConfig) { c.Start = 0 }, echomq.ErrInvalidArgument},
		{"bogus start", func(c *echomq.ConsumerConfig) { c.Start = 9 }, echomq.ErrInvalidArgument},
		{"count", func(c *echomq.ConsumerConfig) { c.Count = -1 }, echomq.ErrInvalidArgument},
		{"concurrency", func(c *echomq.ConsumerConfig) { c.Concurrency = -1 }, echomq.ErrInvalidArgument},
		{"ack batch", func(c *echomq.ConsumerConfig) { c.AckBatch = -1 }, echomq.ErrInvalidArgument},
		{"beat", func(c *echomq.ConsumerConfig) { c.Beat = time.Microsecond }, echomq.ErrInvalidArgument},
		{"min idle", func(c *echomq.ConsumerConfig) { c.MinIdle = -time.Second }, echomq.ErrInvalidArgument},
		{"grace", func(c *echomq.ConsumerConfig) { c.Grace = -1 }, echomq.ErrInvalidArgument},
		{"ack interval", func(c *echomq.ConsumerConfig) { c.AckInterval = c.MinIdle }, echomq.ErrInvalidArgument},
		{"negative ack interval", func(c *echomq.ConsumerConfig) { c.AckInterval = -1 }, echomq.ErrInvalidArgument},
		{"concurrency above max", func(c *echomq.ConsumerConfig) { c.Concurrency = 10_000_000 }, echomq.ErrInvalidArgument},
		{"count above max", func(c *echomq.ConsumerConfig) { c.Count = echomq.MaxCount + 1 }, echomq.ErrInvalidArgument},
		{"ack batch above max", func(c *echomq.ConsumerConfig) { c.AckBatch = echomq.MaxCount + 1 }, echomq.ErrInvalidArgument},
		{"beat above max", func(c *echomq.ConsumerConfig) { c.Beat = echomq.MaxBeat + 1 }, echomq.ErrInvalidArgument},
		{"min idle above max", func(c *echomq.ConsumerConfig) { c.MinIdle = echomq.MaxMinIdle + 1 }, echomq.ErrInvalidArgument},
		{"grace above max", func(c *echomq.ConsumerConfig) { c.Grace = echomq.MaxGrace + 1 }, echomq.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := ok
			tc.mod(&cfg)
			c, err := e.c.Consumer(&cfg)
			require.ErrorIs(t, err, tc.wantErr)
			require.Nil(t, c)
		})
	}
	c, err := e.c.Consumer(&ok)
	require.NoError(t, err)
	require.Equal(t, echomq.DefaultCount, echomq.ConsumerConfigOf(c).Count)
	require.False(t, exists(t, e.c, e.stream.Key()), "nothing is written before Run")
	def, err := e.c.Consumer(&echomq.ConsumerConfig{Queue: "q", Stream: "s", Group: "g", Start: echomq.StartNew, Handle: ok.Handle})
	require.NoError(t, err)
	require.Equal(t, echomq.DefaultConsumerName(), def.Name())
	require.Equal(t, echomq.DefaultMinIdle, echomq.ConsumerConfigOf(def).MinIdle)
}

// TestConsumerEngineRestart: a consumer rides out an engine that dies and
// comes back empty (no persistence): it retries while the engine is away,
// creates its group again, and delivers what is appended afterwards.
func TestConsumerEngineRestart(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	// A configured node id: no lease to lose with the engine's data.
	c := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(7)})
	e := &groupEnv{c: c, queue: echomqtest.Queue(t), srv: srv.URL()}
	e.stream = c.Stream(e.queue, "events")
	before := e.append(t, 3)
	rec := &deliveryLog{}
	r := startConsumer(t, c, e.cfg("g", "c1", rec.handle))
	waitFor(t, "delivered before the restart", func() bool { return len(rec.distinct()) == 3 })
	require.NoError(t, srv.Kill())
	srv.Restart(t)
	var after []echomq.ID
	waitFor(t, "appended after the restart", func() bool {
		ids, err := e.stream.AppendBatch(ctx, []echomq.Fields{echomq.F("n", "late")}, nil)
		if err != nil {
			return false // the client reconnects on its next call
		}
		after = ids
		return true
	})
	waitFor(t, "delivered after the restart", func() bool { return len(rec.of(after[0])) == 1 })
	r.halt(t)
	require.Len(t, rec.of(before[0]), 1)
}
