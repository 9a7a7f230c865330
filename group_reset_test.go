package echomq_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// TestGroupResetDryRunMatchesRedeliveries: after a group consumed a
// stream, a dry run of a reset to an id, a time or a duration ago reports
// how many entries come back; the reset that follows redelivers exactly
// those, oldest first.
func TestGroupResetDryRunMatchesRedeliveries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts func(ids []echomq.ID) *echomq.ResetOpts
		from int // the first entry delivered again
	}{
		{"to id", func(ids []echomq.ID) *echomq.ResetOpts { return &echomq.ResetOpts{ToID: ids[20].EntryID()} }, 20},
		{"to time", func(ids []echomq.ID) *echomq.ResetOpts { return &echomq.ResetOpts{ToTime: ids[0].Time()} }, 0},
		{"by duration", func([]echomq.ID) *echomq.ResetOpts { return &echomq.ResetOpts{Ago: time.Hour} }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newGroupEnv(t)
			ids := e.append(t, 50)
			first := &deliveryLog{}
			r := startConsumer(t, e.c, e.cfg("g", "c1", first.handle))
			waitFor(t, "all delivered", func() bool { return len(first.distinct()) == len(ids) })
			waitFor(t, "all acked", func() bool { return e.pending(t, "g") == 0 })
			r.halt(t)

			g := e.stream.Group("g")
			opts := tt.opts(ids)
			opts.DryRun = true
			dry, err := g.Reset(ctx, opts)
			require.NoError(t, err)
			require.True(t, dry.DryRun)
			require.Equal(t, int64(len(ids)-tt.from), dry.Redeliver)
			require.Equal(t, ids[len(ids)-1].EntryID(), dry.From)
			require.Equal(t, map[string]int64{"c1": 0}, dry.Pending)
			info, err := g.Info(ctx)
			require.NoError(t, err)
			require.Equal(t, dry.From, info.LastDelivered, "a dry run changes nothing")

			opts.DryRun = false
			res, err := g.Reset(ctx, opts)
			require.NoError(t, err)
			require.Equal(t, dry.Redeliver, res.Redeliver)
			again := &deliveryLog{}
			r = startConsumer(t, e.c, e.cfg("g", "c1", again.handle))
			waitFor(t, "redelivered", func() bool { return int64(len(again.distinct())) == res.Redeliver })
			waitFor(t, "all acked", func() bool { return e.pending(t, "g") == 0 })
			r.halt(t)
			got := again.deliveries()
			require.Len(t, got, int(dry.Redeliver), "the dry run's count is the redeliveries")
			for i, d := range got {
				require.Equal(t, ids[tt.from+i], d.ID)
			}
		})
	}
}

// TestGroupResetForwardSkips: a reset past the group's position skips the
// entries between, and the dry run counts them.
func TestGroupResetForwardSkips(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	_, err := e.stream.Group("g").Create(ctx, echomq.StartHead)
	require.NoError(t, err)
	ids := e.append(t, 10)
	res, err := e.stream.Group("g").Reset(ctx, &echomq.ResetOpts{ToID: ids[7].EntryID()})
	require.NoError(t, err)
	require.Equal(t, int64(7), res.Skip)
	require.Zero(t, res.Redeliver)
	rec := &deliveryLog{}
	r := startConsumer(t, e.c, e.cfg("g", "c1", rec.handle))
	waitFor(t, "rest delivered", func() bool { return len(rec.distinct()) == 3 })
	r.halt(t)
	require.Equal(t, ids[7], rec.deliveries()[0].ID)
}

func TestGroupResetBadInput(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	tests := []struct {
		name string
		g    *echomq.Group
		opts *echomq.ResetOpts
		want error
	}{
		{"no target", e.stream.Group("g"), &echomq.ResetOpts{}, echomq.ErrInvalidArgument},
		{"nil opts", e.stream.Group("g"), nil, echomq.ErrInvalidArgument},
		{"two targets", e.stream.Group("g"), &echomq.ResetOpts{Ago: time.Second, ToTime: time.Now()}, echomq.ErrInvalidArgument},
		{"negative ago", e.stream.Group("g"), &echomq.ResetOpts{Ago: -time.Second}, echomq.ErrInvalidArgument},
		{"bad group name", e.stream.Group("a b"), &echomq.ResetOpts{Ago: time.Second}, echomq.ErrInvalidName},
		{"missing group", e.stream.Group("nope"), &echomq.ResetOpts{Ago: time.Second}, echomq.ErrGroupNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.g.Reset(ctx, tt.opts)
			require.ErrorIs(t, err, tt.want)
		})
	}
	groups, err := e.stream.Groups(ctx)
	require.NoError(t, err)
	require.Empty(t, groups, "bad input writes nothing")
}
