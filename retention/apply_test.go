package retention_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/retention"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func newClient(t *testing.T) *echomq.Client {
	t.Helper()
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: echomqtest.Shared(t).URL(), NodeID: new(11), Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// fill appends n events minted one second apart from t0 and returns them.
func fill(t *testing.T, s *echomq.Stream, t0 time.Time, n int) []echomq.ID {
	t.Helper()
	ms := t0.UnixMilli()
	m, err := echomq.NewMinter(3, func() time.Time { return time.UnixMilli(ms) })
	require.NoError(t, err)
	ids := make([]echomq.ID, n)
	for i := range ids {
		ids[i] = m.NextID(echomq.BrandEvent)
		require.NoError(t, s.AppendID(context.Background(), ids[i], echomq.F("i", strconv.Itoa(i))))
		ms += 1000
	}
	return ids
}

func live(t *testing.T, s *echomq.Stream) []echomq.ID {
	t.Helper()
	evs, err := s.Read(context.Background(), echomq.All, nil)
	require.NoError(t, err)
	out := make([]echomq.ID, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}

var t0 = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

// TestApply: exact trims remove exactly what the rule says; approximate
// ones may remove less (whole nodes only), never more.
func TestApply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		rule    retention.Rule
		n       int // entries appended
		keepLo  int // exact: the number kept; approximate: at least this many
		approx  bool
		nowSecs int
	}{
		{name: "maxlen exact", rule: retention.MaxLen(2).Exact(), n: 7, keepLo: 2},
		{name: "maxlen zero exact", rule: retention.MaxLen(0).Exact(), n: 3, keepLo: 0},
		{name: "maxlen approximate", rule: retention.MaxLen(2), n: 7, keepLo: 2, approx: true},
		{name: "maxlen approximate large", rule: retention.MaxLen(10), n: 1000, keepLo: 10, approx: true},
		{name: "minid exact", rule: retention.MinTime(t0.Add(4 * time.Second)).Exact(), n: 7, keepLo: 3},
		{name: "minid approximate", rule: retention.MinTime(t0.Add(4 * time.Second)), n: 7, keepLo: 3, approx: true},
		{name: "ago exact", rule: retention.Ago(2 * time.Second).Exact(), n: 10, keepLo: 3, nowSecs: 9},
		{name: "ago approximate", rule: retention.Ago(500 * time.Second), n: 1000, keepLo: 501, approx: true, nowSecs: 999},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t)
			q := echomqtest.Queue(t)
			s := c.Stream(q, "s")
			all := fill(t, s, t0, tc.n)
			p := retention.Policy{Queue: q, Stream: "s", Rule: tc.rule}
			res, err := retention.Apply(context.Background(), c, p, t0.Add(time.Duration(tc.nowSecs)*time.Second))
			require.NoError(t, err)
			kept := live(t, s)
			require.Equal(t, int64(tc.n-len(kept)), res.Trimmed)
			if tc.approx {
				require.GreaterOrEqual(t, len(kept), tc.keepLo, "an approximate trim never over-trims")
			} else {
				require.Len(t, kept, tc.keepLo)
			}
			require.Equal(t, all[tc.n-len(kept):], kept, "the newest survive")
		})
	}
}

// TestDriverAgo: a started driver with an injected clock applies "ago d"
// against the clock, on its tick, until stopped.
func TestDriverAgo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "aged")
	all := fill(t, s, t0, 20)
	var nowMs atomicInt
	nowMs.set(t0.Add(10 * time.Second).UnixMilli())
	sweeps := make(chan retention.SweepResult, 8)
	d, err := retention.New(c, &retention.Config{
		Policies: []retention.Policy{{Queue: q, Stream: "aged", Rule: retention.Ago(5 * time.Second).Exact()}},
		Tick:     5 * time.Millisecond,
		Clock:    func() time.Time { return time.UnixMilli(nowMs.get()) },
		OnSweep:  func(r retention.SweepResult) { sweeps <- r },
	})
	require.NoError(t, err)
	require.NoError(t, d.Start(ctx))
	require.ErrorIs(t, d.Start(ctx), echomq.ErrRunning, "one run at a time")
	require.ErrorIs(t, d.Run(ctx), echomq.ErrRunning)
	r := echomqtest.Recv(t, sweeps, 30*time.Second, "the first sweep")
	require.NoError(t, r.Err())
	require.Equal(t, int64(5), r.Trimmed, "entries minted before now-5s = t0+5s")
	require.Equal(t, all[5:], live(t, s))
	nowMs.set(t0.Add(17 * time.Second).UnixMilli())
	for {
		r := echomqtest.Recv(t, sweeps, 30*time.Second, "a sweep that trims")
		if r.Trimmed > 0 {
			require.Equal(t, int64(7), r.Trimmed)
			break
		}
	}
	require.NoError(t, d.Stop(ctx))
	echomqtest.Recv(t, d.Stopped(), 30*time.Second, "the driver to stop")
	require.Equal(t, all[12:], live(t, s))
}

// TestSweep: one sweep by hand over several policies; an empty policy
// list trims nothing.
func TestSweep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	fill(t, c.Stream(q, "a"), t0, 7)
	fill(t, c.Stream(q, "b"), t0, 4)
	d, err := retention.New(c, nil)
	require.NoError(t, err)
	res, err := d.Sweep(ctx)
	require.NoError(t, err)
	require.Zero(t, res.Trimmed, "opt-in: nothing declared, nothing trimmed")
	d, err = retention.New(c, &retention.Config{Policies: []retention.Policy{
		{Queue: q, Stream: "a", Rule: retention.MaxLen(2).Exact()},
		{Queue: q, Stream: "b", Rule: retention.MaxLen(1).Exact()},
		{Queue: q, Stream: "missing", Rule: retention.MaxLen(1).Exact()},
	}})
	require.NoError(t, err)
	res, err = d.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(5+3), res.Trimmed)
	require.Len(t, res.Results, 3)
}

// TestRefusesArchivedStreams: a stream under archive control (it has a
// watermark, or an archiver holds its lease) is refused and not trimmed.
func TestRefusesArchivedStreams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	marked := fill(t, c.Stream(q, "archived"), t0, 5)
	require.NoError(t, archive.SetWatermark(ctx, c.Stream(q, "archived"), marked[0]))
	fill(t, c.Stream(q, "leased"), t0, 5)
	_, err := rawcmd.Do(ctx, c, "SET", "emq:{"+q+"}:stream:leased:archiver", "token", "PX", "60000")
	require.NoError(t, err)
	fill(t, c.Stream(q, "free"), t0, 5)
	pols := []retention.Policy{
		{Queue: q, Stream: "archived", Rule: retention.MaxLen(0).Exact()},
		{Queue: q, Stream: "leased", Rule: retention.MaxLen(0).Exact()},
		{Queue: q, Stream: "free", Rule: retention.MaxLen(0).Exact()},
	}
	for _, p := range pols[:2] {
		_, err := retention.Apply(ctx, c, p, time.Now())
		require.ErrorIs(t, err, retention.ErrArchived)
		var ae *retention.ArchivedError
		require.ErrorAs(t, err, &ae)
		require.Equal(t, p.Stream, ae.Stream)
		require.Len(t, live(t, c.Stream(q, p.Stream)), 5, "nothing trimmed")
	}
	d, err := retention.New(c, &retention.Config{Policies: pols, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	err = d.Start(ctx)
	require.ErrorIs(t, err, retention.ErrArchived, "the driver refuses to start")
	require.Contains(t, err.Error(), "archived")
	require.Contains(t, err.Error(), "leased")
	res, err := d.Sweep(ctx)
	require.ErrorIs(t, err, retention.ErrArchived)
	require.Equal(t, 2, res.Failed)
	require.Equal(t, int64(5), res.Trimmed, "the free stream still trims")
}

// TestBadInput: bad policies and configs are refused before any I/O with
// typed errors, and write nothing.
func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	good := retention.Policy{Queue: q, Stream: "s", Rule: retention.MaxLen(1)}
	for _, tc := range []struct {
		name string
		run  func() error
		want error
	}{
		{"apply nil client", func() error { _, err := retention.Apply(ctx, nil, good, time.Now()); return err }, echomq.ErrInvalidArgument},
		{"apply bad queue", func() error {
			_, err := retention.Apply(ctx, c, retention.Policy{Queue: "emq", Stream: "s", Rule: retention.MaxLen(1)}, time.Now())
			return err
		}, echomq.ErrInvalidName},
		{"apply bad stream", func() error {
			_, err := retention.Apply(ctx, c, retention.Policy{Queue: q, Stream: "", Rule: retention.MaxLen(1)}, time.Now())
			return err
		}, echomq.ErrInvalidName},
		{"apply zero rule", func() error {
			_, err := retention.Apply(ctx, c, retention.Policy{Queue: q, Stream: "s"}, time.Now())
			return err
		}, echomq.ErrInvalidArgument},
		{"apply negative maxlen", func() error {
			_, err := retention.Apply(ctx, c, retention.Policy{Queue: q, Stream: "s", Rule: retention.MaxLen(-3)}, time.Now())
			return err
		}, echomq.ErrInvalidArgument},
		{"apply negative ago", func() error {
			_, err := retention.Apply(ctx, c, retention.Policy{Queue: q, Stream: "s", Rule: retention.Ago(-time.Second)}, time.Now())
			return err
		}, echomq.ErrInvalidArgument},
		{"apply instant before 1970", func() error {
			_, err := retention.Apply(ctx, c, retention.Policy{Queue: q, Stream: "s", Rule: retention.MinTime(time.Time{})}, time.Now())
			return err
		}, echomq.ErrInvalidArgument},
		{"new nil client", func() error { _, err := retention.New(nil, nil); return err }, echomq.ErrInvalidArgument},
		{"new negative tick", func() error { _, err := retention.New(c, &retention.Config{Tick: -time.Second}); return err }, echomq.ErrInvalidArgument},
		{"new twice", func() error {
			_, err := retention.New(c, &retention.Config{Policies: []retention.Policy{good, good}})
			return err
		}, echomq.ErrInvalidArgument},
		{"new bad policy", func() error {
			_, err := retention.New(c, &retention.Config{Policies: []retention.Policy{{Queue: q, Stream: "a b", Rule: retention.MaxLen(1)}}})
			return err
		}, echomq.ErrInvalidName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.run(), tc.want)
		})
	}
	keys, err := rawcmd.Do(ctx, c, "KEYS", "emq:{"+q+"}:*")
	require.NoError(t, err)
	require.Empty(t, keys)
}
