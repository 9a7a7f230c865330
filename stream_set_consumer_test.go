package echomq_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

func TestSetBadInput(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	q := echomqtest.Queue(t)
	h := func(context.Context, echomq.Delivery) error { return nil }
	sets := []struct {
		name string
		set  *echomq.StreamSet
		want error
	}{
		{"bad queue", c.Streams("emq", "a"), echomq.ErrInvalidName},
		{"bad stream", c.Streams(q, "a", "b:c"), echomq.ErrInvalidName},
		{"no stream", c.Streams(q), echomq.ErrInvalidArgument},
		{"a stream twice", c.Streams(q, "a", "a"), echomq.ErrInvalidArgument},
		{"bad prefix", c.StreamsPrefix(q, "a{"), echomq.ErrInvalidName},
	}
	for _, tt := range sets {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorIs(t, tt.set.Err(), tt.want)
			_, err := tt.set.Names(ctx)
			require.ErrorIs(t, err, tt.want)
			_, err = tt.set.Follower(nil)
			require.ErrorIs(t, err, tt.want)
			_, err = c.SetConsumer(&echomq.SetConsumerConfig{Set: tt.set, Group: "g", Start: echomq.StartHead, Handle: h})
			require.ErrorIs(t, err, tt.want)
		})
	}
	good := c.Streams(q, "a", "b")
	opts := []struct {
		name string
		opts echomq.SetFollowOpts
	}{
		{"negative count", echomq.SetFollowOpts{Count: -1}},
		{"negative settle", echomq.SetFollowOpts{Settle: -time.Second}},
		{"bad start", echomq.SetFollowOpts{Start: echomq.Start(9)}},
		{"bad checkpoint name", echomq.SetFollowOpts{From: echomq.Checkpoint{"a b": {}}}},
	}
	for _, tt := range opts {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := good.Follower(&tt.opts)
			require.Error(t, err)
		})
	}
	cfgs := []struct {
		name string
		cfg  echomq.SetConsumerConfig
		want error
	}{
		{"no set", echomq.SetConsumerConfig{Group: "g", Start: echomq.StartHead, Handle: h}, echomq.ErrInvalidArgument},
		{"no handler", echomq.SetConsumerConfig{Set: good, Group: "g", Start: echomq.StartHead}, echomq.ErrInvalidArgument},
		{"no start", echomq.SetConsumerConfig{Set: good, Group: "g", Handle: h}, echomq.ErrInvalidArgument},
		{"bad group", echomq.SetConsumerConfig{Set: good, Group: "a b", Start: echomq.StartHead, Handle: h}, echomq.ErrInvalidName},
		{"bad consumer", echomq.SetConsumerConfig{Set: good, Group: "g", Name: "x:y", Start: echomq.StartHead, Handle: h}, echomq.ErrInvalidName},
		{"negative beat", echomq.SetConsumerConfig{Set: good, Group: "g", Start: echomq.StartHead, Handle: h, Beat: -1}, echomq.ErrInvalidArgument},
	}
	for _, tt := range cfgs {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := c.SetConsumer(&tt.cfg)
			require.ErrorIs(t, err, tt.want)
		})
	}
	for _, n := range []string{"a", "b"} {
		groups, err := c.Stream(q, n).Groups(ctx)
		require.NoError(t, err)
		require.Empty(t, groups, "bad input writes nothing")
	}
}

// TestSetConsumerRetriesAndDeadLetters: over two streams, a failing entry
// is retried after RetryAfter and acknowledged on its own stream; an entry
// that fails past MaxDeliveries and one that does not decode go to their
// own stream's dead letters.
func TestSetConsumerRetriesAndDeadLetters(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	q := echomqtest.Queue(t)
	a, b := c.Stream(q, "a"), c.Stream(q, "b")
	retry, err := a.Append(ctx, echomq.F("kind", "retry"), nil)
	require.NoError(t, err)
	poison, err := b.Append(ctx, echomq.F("kind", "poison"), nil)
	require.NoError(t, err)
	undecodable, err := b.Append(ctx, echomq.F("kind", "decode"), nil)
	require.NoError(t, err)
	fine, err := a.Append(ctx, echomq.F("kind", "fine"), nil)
	require.NoError(t, err)

	rec := &deliveryLog{fail: func(d echomq.Delivery) error {
		switch d.Fields.Value("kind") {
		case "retry":
			if d.Attempts < 2 {
				return echomq.RetryAfter(0)
			}
		case "poison":
			return errors.New("always fails")
		case "decode":
			return &echomq.DecodeError{Stream: d.Stream, Entry: d.Entry, Stage: "codec", Err: errors.New("bad")}
		}
		return nil
	}}
	sc, err := c.SetConsumer(&echomq.SetConsumerConfig{
		Set: c.Streams(q, "a", "b"), Group: "g", Name: "w", Start: echomq.StartHead,
		Handle: rec.handle, Beat: 20 * time.Millisecond, MinIdle: 300 * time.Millisecond, MaxDeliveries: 2, Settle: 20 * time.Millisecond,
		Logger: discardLog,
	})
	require.NoError(t, err)
	require.NoError(t, sc.Start(ctx))
	waitFor(t, "settled", func() bool {
		na, _ := a.DeadLetters().Len(ctx)
		nb, _ := b.DeadLetters().Len(ctx)
		return len(rec.of(retry)) == 2 && len(rec.of(poison)) == 2 && na == 0 && nb == 2
	})
	require.NoError(t, sc.Stop(ctx))
	var firsts []echomq.ID
	seen := map[echomq.ID]bool{}
	for _, d := range rec.deliveries() {
		if !seen[d.ID] {
			seen[d.ID] = true
			firsts = append(firsts, d.ID)
		}
	}
	require.Equal(t, []echomq.ID{retry, poison, undecodable, fine}, firsts, "first deliveries in merged order (retries come after, out of order)")
	require.Len(t, rec.of(undecodable), 1, "dead at the first delivery")
	require.Len(t, rec.of(fine), 1)
	for _, s := range []*echomq.Stream{a, b} {
		gi, err := s.Group("g").Info(ctx)
		require.NoError(t, err)
		require.Zero(t, gi.Pending, "%s: acknowledged on its own stream", s.Name())
	}
	letters, err := b.DeadLetters().List(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, undecodable, letters[0].Origin, "dead first: at its first delivery")
	require.Contains(t, letters[0].Error, "codec")
	require.Equal(t, poison, letters[1].Origin)
	require.Equal(t, "always fails", letters[1].Error)
	st := sc.Stats()
	require.Equal(t, int64(2), st.Dead)
	require.GreaterOrEqual(t, st.Acked, int64(2))
}
