package echomq_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// TestGroupCreate: MKSTREAM, an explicit start, an existing group is fine,
// a key of the wrong type fails loudly and is left alone.
func TestGroupCreate(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	created, err := e.stream.Group("fresh").Create(ctx, echomq.StartNew)
	require.NoError(t, err)
	require.True(t, created)
	require.True(t, exists(t, e.c, e.stream.Key()), "MKSTREAM created the stream")
	created, err = e.stream.Group("fresh").Create(ctx, echomq.StartHead)
	require.NoError(t, err)
	require.False(t, created, "an existing group is fine and keeps its position")

	e.append(t, 3)
	for _, tc := range []struct {
		group   string
		start   echomq.Start
		wantLag int64
	}{{"new", echomq.StartNew, 0}, {"head", echomq.StartHead, 3}} {
		_, err := e.stream.Group(tc.group).Create(ctx, tc.start)
		require.NoError(t, err)
		gi, err := e.stream.Group(tc.group).Info(ctx)
		require.NoError(t, err)
		require.Equal(t, tc.wantLag, gi.Lag, tc.group)
	}

	wrong := newGroupEnv(t)
	_, err = rawcmd.Do(ctx, wrong.c, "SET", wrong.stream.Key(), "x")
	require.NoError(t, err)
	_, err = wrong.stream.Group("g").Create(ctx, echomq.StartNew)
	require.ErrorIs(t, err, echomq.ErrWrongType)
	v, err := rawcmd.Do(ctx, wrong.c, "GET", wrong.stream.Key())
	require.NoError(t, err)
	require.Equal(t, "x", v)

	for s, want := range map[string]echomq.Start{"new": echomq.StartNew, "head": echomq.StartHead} {
		require.Equal(t, s, want.String())
	}
}

// TestGroupInspectClaimDelete: info, pending, claim and the safe removal of
// consumers.
func TestGroupInspectClaimDelete(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	e.create(t, "g")
	e.create(t, "other")
	ids := e.append(t, 5)
	require.Len(t, rawReadGroup(t, e, "g", "a", 3, ">"), 3)
	require.Len(t, rawReadGroup(t, e, "g", "b", 2, ">"), 2)
	g := e.stream.Group("g")

	gi, err := g.Info(ctx)
	require.NoError(t, err)
	require.Equal(t, "g", gi.Name)
	require.Equal(t, int64(5), gi.Pending)
	require.Equal(t, ids[4].EntryID(), gi.LastDelivered)
	require.Equal(t, int64(5), gi.EntriesRead)
	require.Equal(t, int64(0), gi.Lag)
	require.Len(t, gi.Consumers, 2)
	require.Equal(t, "a", gi.Consumers[0].Name)
	require.Equal(t, int64(3), gi.Consumers[0].Pending)
	require.Equal(t, int64(2), gi.Consumers[1].Pending)
	// The inactive time is the engine's (Redis 7.2 and later, every
	// Valkey); -1 where it has none (Redis 7.0).
	v, err := echomqtest.Shared(t).Version()
	require.NoError(t, err)
	for _, c := range gi.Consumers {
		require.GreaterOrEqual(t, c.Idle, time.Duration(0), c.Name)
		if v.RedisAtLeast(7, 2) {
			require.GreaterOrEqual(t, c.Inactive, time.Duration(0), "%s on %s", c.Name, v)
		} else {
			require.Equal(t, time.Duration(-1), c.Inactive, "%s on %s", c.Name, v)
		}
	}

	all, err := e.stream.Groups(ctx)
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, int64(5), all[1].Lag, "the other group has read nothing")

	rows, err := g.Pending(ctx, nil)
	require.NoError(t, err)
	require.Len(t, rows, 5)
	require.Equal(t, ids[0].EntryID(), rows[0].Entry)
	require.Equal(t, int64(1), rows[0].Deliveries)
	rows, err = g.Pending(ctx, &echomq.PendingOpts{Consumer: "b"})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	rows, err = g.Pending(ctx, &echomq.PendingOpts{Range: echomq.Span(echomq.After(ids[0]), echomq.At(ids[2]))})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	rows, err = g.Pending(ctx, &echomq.PendingOpts{Count: 1, MinIdle: time.Hour})
	require.NoError(t, err)
	require.Empty(t, rows)

	// b owns entries: it cannot be removed, and nothing changes.
	_, err = g.DeleteConsumer(ctx, "b")
	var cpe *echomq.ConsumerPendingError
	require.ErrorAs(t, err, &cpe)
	require.ErrorIs(t, err, echomq.ErrConsumerPending)
	require.Equal(t, int64(2), cpe.Pending)
	require.Equal(t, int64(5), e.pending(t, "g"))

	// Move a's backlog to c (not a delivery), then a can go.
	moved, err := g.Claim(ctx, "c", &echomq.ClaimOpts{From: "a"})
	require.NoError(t, err)
	require.Equal(t, []echomq.EntryID{ids[0].EntryID(), ids[1].EntryID(), ids[2].EntryID()}, moved)
	moved, err = g.Claim(ctx, "c", &echomq.ClaimOpts{IDs: []echomq.EntryID{ids[3].EntryID()}, MinIdle: time.Hour})
	require.NoError(t, err)
	require.Empty(t, moved, "not idle long enough")
	moved, err = g.Claim(ctx, "c", &echomq.ClaimOpts{IDs: []echomq.EntryID{ids[3].EntryID()}})
	require.NoError(t, err)
	require.Len(t, moved, 1)
	rows, err = g.Pending(ctx, &echomq.PendingOpts{Consumer: "c"})
	require.NoError(t, err)
	require.Len(t, rows, 4)
	require.Equal(t, int64(1), rows[0].Deliveries, "a claim is not a delivery")

	existed, err := g.DeleteConsumer(ctx, "a")
	require.NoError(t, err)
	require.True(t, existed)
	existed, err = g.DeleteConsumer(ctx, "nobody")
	require.NoError(t, err)
	require.False(t, existed)
	require.Equal(t, int64(5), e.pending(t, "g"), "no pending entry was dropped")

	// A consumer started under the claimer's name drains what it was given.
	rec := &deliveryLog{}
	startConsumer(t, e.c, e.cfg("g", "c", rec.handle))
	waitFor(t, "c drained its claimed backlog", func() bool { return len(rec.distinct()) == 4 })

	_, err = e.stream.Group("missing").Info(ctx)
	require.ErrorIs(t, err, echomq.ErrGroupNotFound)
	_, err = e.stream.Group("missing").Pending(ctx, nil)
	require.ErrorIs(t, err, echomq.ErrGroupNotFound)
}

// TestGroupBadInput: every group verb refuses bad input with a typed error
// and writes nothing.
func TestGroupBadInput(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	g := e.stream.Group("g")
	bad := e.c.Group(e.queue, "events", "no spaces")
	inverted := echomq.Span(echomq.Inclusive(echomq.EntryID{Ms: 9}), echomq.Inclusive(echomq.EntryID{Ms: 1}))
	for _, tc := range []struct {
		name    string
		call    func(context.Context) error
		wantErr error
	}{
		{"create bad queue", func(ctx context.Context) error {
			_, err := e.c.Group("emq", "events", "g").Create(ctx, echomq.StartNew)
			return err
		}, echomq.ErrInvalidName},
		{"create bad group", func(ctx context.Context) error { _, err := bad.Create(ctx, echomq.StartNew); return err }, echomq.ErrInvalidName},
		{"create zero start", func(ctx context.Context) error { _, err := g.Create(ctx, 0); return err }, echomq.ErrInvalidArgument},
		{"info bad group", func(ctx context.Context) error { _, err := bad.Info(ctx); return err }, echomq.ErrInvalidName},
		{"groups bad stream", func(ctx context.Context) error {
			_, err := e.c.Stream(e.queue, "a b").Groups(ctx)
			return err
		}, echomq.ErrInvalidName},
		{"pending count", func(ctx context.Context) error {
			_, err := g.Pending(ctx, &echomq.PendingOpts{Count: -1})
			return err
		}, echomq.ErrInvalidArgument},
		{"pending min idle", func(ctx context.Context) error {
			_, err := g.Pending(ctx, &echomq.PendingOpts{MinIdle: -1})
			return err
		}, echomq.ErrInvalidArgument},
		{"pending consumer", func(ctx context.Context) error {
			_, err := g.Pending(ctx, &echomq.PendingOpts{Consumer: "a:b"})
			return err
		}, echomq.ErrInvalidName},
		{"pending range", func(ctx context.Context) error {
			_, err := g.Pending(ctx, &echomq.PendingOpts{Range: inverted})
			return err
		}, echomq.ErrInvalidRange},
		{"claim to", func(ctx context.Context) error { _, err := g.Claim(ctx, "", nil); return err }, echomq.ErrInvalidName},
		{"claim from", func(ctx context.Context) error {
			_, err := g.Claim(ctx, "c", &echomq.ClaimOpts{From: "{x}"})
			return err
		}, echomq.ErrInvalidName},
		{"claim count", func(ctx context.Context) error {
			_, err := g.Claim(ctx, "c", &echomq.ClaimOpts{Count: -1})
			return err
		}, echomq.ErrInvalidArgument},
		{"delete consumer name", func(ctx context.Context) error { _, err := g.DeleteConsumer(ctx, ""); return err }, echomq.ErrInvalidName},
		{"delete consumer bad group", func(ctx context.Context) error { _, err := bad.DeleteConsumer(ctx, "c"); return err }, echomq.ErrInvalidName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorIs(t, tc.call(ctx), tc.wantErr)
		})
	}
	t.Cleanup(func() { require.False(t, exists(t, e.c, e.stream.Key()), "nothing written") })
}
