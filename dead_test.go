package echomq_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/rawcmd"
)

// TestDeadPoison: a poison entry reaches the dead letters after exactly
// MaxDeliveries, with origin, attempts and error recorded, while the
// entries after it keep flowing; replay re-appends it and it is handled.
func TestDeadPoison(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ids := e.append(t, 6)
	poison := ids[1]
	rec := &deliveryLog{fail: func(d echomq.Delivery) error {
		if d.ID == poison {
			return errors.New("boom")
		}
		return nil
	}}
	cfg := e.cfg("g", "c1", rec.handle)
	cfg.MinIdle = 100 * time.Millisecond
	cfg.MaxDeliveries = 3
	r := startConsumer(t, e.c, cfg)
	waitFor(t, "dead-lettered", func() bool { return r.c.Stats().Dead == 1 })
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	require.Len(t, rec.of(poison), 3, "exactly MaxDeliveries deliveries")
	require.Len(t, rec.distinct(), 6, "the others flowed")

	dead := e.stream.DeadLetters()
	dls, err := dead.List(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, dls, 1)
	dl := dls[0]
	require.Equal(t, poison, dl.Origin)
	require.Equal(t, poison.EntryID(), dl.OriginEntry)
	require.Equal(t, int64(3), dl.Attempts)
	require.Equal(t, "boom", dl.Error)
	require.Equal(t, "events", dl.Stream)
	require.Equal(t, "g", dl.Group)
	require.Equal(t, "c1", dl.Consumer)
	require.Equal(t, echomq.F("n", "1"), dl.Payload)
	require.Equal(t, echomq.BrandEvent, dl.ID.Brand())
	require.Equal(t, dl.ID.EntryID(), dl.Entry, "the dead letter's id is a minted EVT id")

	// The stored shape, as any other program reads it.
	raw, err := rawcmd.Do(ctx, e.c, "XRANGE", dead.Key(), "-", "+")
	require.NoError(t, err)
	entry := raw.([]any)[0].([]any)
	require.Equal(t, dl.Entry.String(), entry[0])
	require.Equal(t, []any{
		"id", dl.ID.String(), "origin", poison.String(), "stream", "events", "group", "g", "consumer", "c1",
		"attempts", "3", "error", "boom", "payload", `[["n","1"]]`,
	}, entry[1])

	got, err := dead.Get(ctx, dl.ID)
	require.NoError(t, err)
	require.Equal(t, dl, got)

	// Replay: a new event with the same payload, handled like any other.
	replayed, err := dead.Replay(ctx, dl.ID)
	require.NoError(t, err)
	require.NotEqual(t, poison, replayed)
	waitFor(t, "replayed event handled", func() bool { return len(rec.of(replayed)) == 1 })
	require.Equal(t, echomq.F("n", "1"), rec.of(replayed)[0].Fields)
	n, err := dead.Len(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a replayed dead letter is gone")
	_, err = dead.Replay(ctx, dl.ID)
	require.ErrorIs(t, err, echomq.ErrDeadLetterNotFound, "a dead letter replays once")
	_, err = dead.Get(ctx, dl.ID)
	require.ErrorIs(t, err, echomq.ErrDeadLetterNotFound)
}

// TestDeadOverLimitOnArrival: an entry that arrives with more deliveries
// than the limit (a handler that crashed its process again and again) is
// dead-lettered without running the handler.
func TestDeadOverLimitOnArrival(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	e.create(t, "g")
	id := e.append(t, 1)[0]
	rawReadGroup(t, e, "g", "c1", 1, ">")
	for range 4 { // each history read counts a delivery
		rawReadGroup(t, e, "g", "c1", 1, "0")
	}
	rec := &deliveryLog{}
	cfg := e.cfg("g", "c1", rec.handle)
	cfg.MaxDeliveries = 3
	r := startConsumer(t, e.c, cfg)
	waitFor(t, "dead-lettered", func() bool { return r.c.Stats().Dead == 1 })
	require.Empty(t, rec.deliveries())
	dls, err := e.stream.DeadLetters().List(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, dls, 1)
	require.Equal(t, id, dls[0].Origin)
	require.Equal(t, int64(6), dls[0].Attempts)
	require.Contains(t, dls[0].Error, "over the limit of 3")
}

// TestDeadDisabled: a negative MaxDeliveries retries forever.
func TestDeadDisabled(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	id := e.append(t, 1)[0]
	rec := &deliveryLog{fail: func(echomq.Delivery) error { return errors.New("again") }}
	cfg := e.cfg("g", "c1", rec.handle)
	cfg.MinIdle = 30 * time.Millisecond
	cfg.MaxDeliveries = -1
	r := startConsumer(t, e.c, cfg)
	waitFor(t, "past the default limit", func() bool { return len(rec.of(id)) > echomq.DefaultMaxDeliveries+1 })
	st := r.halt(t)
	require.Zero(t, st.Dead)
}

// TestDeadPurge: list, purge by id, purge all.
func TestDeadPurge(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ids := e.append(t, 3)
	rec := &deliveryLog{fail: func(echomq.Delivery) error { return errors.New("no") }}
	cfg := e.cfg("g", "c1", rec.handle)
	cfg.MaxDeliveries = 1
	r := startConsumer(t, e.c, cfg)
	waitFor(t, "all dead", func() bool { return r.c.Stats().Dead == 3 })
	dead := e.c.Stream(e.queue, "events").DeadLetters()
	dls, err := dead.List(ctx, echomq.All, &echomq.ReadOpts{Count: 2, Reverse: true})
	require.NoError(t, err)
	require.Len(t, dls, 2)
	require.Equal(t, ids[2], dls[0].Origin, "newest first")
	n, err := dead.Purge(ctx, dls[0].ID, dls[0].ID)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	n, err = dead.PurgeAll(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	n, err = dead.Len(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestDeadBadInput: every dead-letter verb refuses bad input with a typed
// error and writes nothing.
func TestDeadBadInput(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	dead := e.stream.DeadLetters()
	badName := e.c.Stream(e.queue, "a:b").DeadLetters()
	job := echomq.MustID("JOB", 1)
	for _, tc := range []struct {
		name    string
		call    func(context.Context) error
		wantErr error
	}{
		{"len bad name", func(ctx context.Context) error { _, err := badName.Len(ctx); return err }, echomq.ErrInvalidName},
		{"list bad name", func(ctx context.Context) error { _, err := badName.List(ctx, echomq.All, nil); return err }, echomq.ErrInvalidName},
		{"list negative count", func(ctx context.Context) error {
			_, err := dead.List(ctx, echomq.All, &echomq.ReadOpts{Count: -1})
			return err
		}, echomq.ErrInvalidArgument},
		{"get zero id", func(ctx context.Context) error { _, err := dead.Get(ctx, echomq.ID{}); return err }, echomq.ErrMalformedID},
		{"get wrong kind", func(ctx context.Context) error { _, err := dead.Get(ctx, job); return err }, echomq.ErrWrongKind},
		{"get absent", func(ctx context.Context) error {
			_, err := dead.Get(ctx, mint(t, e.c, e.queue, echomq.BrandEvent))
			return err
		}, echomq.ErrDeadLetterNotFound},
		{"replay wrong kind", func(ctx context.Context) error { _, err := dead.Replay(ctx, job); return err }, echomq.ErrWrongKind},
		{"replay absent", func(ctx context.Context) error {
			_, err := dead.Replay(ctx, mint(t, e.c, e.queue, echomq.BrandEvent))
			return err
		}, echomq.ErrDeadLetterNotFound},
		{"purge zero id", func(ctx context.Context) error { _, err := dead.Purge(ctx, echomq.ID{}); return err }, echomq.ErrMalformedID},
		{"purge bad name", func(ctx context.Context) error { _, err := badName.PurgeAll(ctx); return err }, echomq.ErrInvalidName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorIs(t, tc.call(ctx), tc.wantErr)
		})
	}
	t.Cleanup(func() {
		require.False(t, exists(t, e.c, e.stream.Key()), "nothing written")
		require.False(t, exists(t, e.c, dead.Key()), "nothing written")
	})
}

// TestDeadAboveOtherWriters: when another writer's dead letter sits above
// this client's minter (within MaxSkew), the move takes an id above it.
func TestDeadAboveOtherWriters(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	ahead := echomq.MustID(echomq.BrandEvent, echomq.SnowflakeAt(time.Now().Add(2*time.Second)))
	_, err := rawcmd.Do(ctx, e.c, "XADD", e.stream.DeadLetters().Key(), ahead.EntryID().String(), "id", ahead.String())
	require.NoError(t, err)
	e.append(t, 1)
	cfg := e.cfg("g", "c1", func(context.Context, echomq.Delivery) error { return errors.New("no") })
	cfg.MaxDeliveries = 1
	r := startConsumer(t, e.c, cfg)
	waitFor(t, "dead-lettered", func() bool { return r.c.Stats().Dead == 1 })
	evs, err := rawcmd.Do(ctx, e.c, "XLEN", e.stream.DeadLetters().Key())
	require.NoError(t, err)
	require.Equal(t, int64(2), evs)
}
