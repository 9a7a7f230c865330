package echomq_test

import (
	"context"
	"errors"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/tables"
)

// recorder implements every hook of the root package and keeps what it
// saw.
type recorder struct {
	mu       sync.Mutex
	calls    map[string]int
	appends  []echomq.AppendInfo
	reads    []echomq.ReadInfo
	delivers []echomq.DeliverInfo
	acks     []echomq.AckInfo
	deads    []echomq.DeadLetterInfo
	trims    []echomq.TrimInfo
	prepared int
	addField bool
}

func newRecorder() *recorder { return &recorder{calls: map[string]int{}} }

func (r *recorder) OnEngineCall(c echomq.EngineCall) {
	r.mu.Lock()
	r.calls[c.Command] += c.Commands
	r.mu.Unlock()
}

func (r *recorder) PrepareAppend(ctx context.Context, p *echomq.AppendPrepare) context.Context {
	r.mu.Lock()
	r.prepared++
	add := r.addField
	r.mu.Unlock()
	if add {
		for i, f := range p.Records {
			p.Records[i] = append(append(echomq.Fields(nil), f...), "trace", "t-"+p.Stream)
		}
	}
	return ctx
}

func (r *recorder) OnAppend(_ context.Context, a echomq.AppendInfo) {
	r.mu.Lock()
	r.appends = append(r.appends, a)
	r.mu.Unlock()
}

func (r *recorder) OnRead(_ context.Context, a echomq.ReadInfo) {
	r.mu.Lock()
	r.reads = append(r.reads, a)
	r.mu.Unlock()
}

func (r *recorder) OnDeliver(_ context.Context, d echomq.DeliverInfo) {
	r.mu.Lock()
	r.delivers = append(r.delivers, d)
	r.mu.Unlock()
}

func (r *recorder) OnAck(_ context.Context, a echomq.AckInfo) {
	r.mu.Lock()
	r.acks = append(r.acks, a)
	r.mu.Unlock()
}

func (r *recorder) OnDeadLetter(_ context.Context, d echomq.DeadLetterInfo) {
	r.mu.Lock()
	r.deads = append(r.deads, d)
	r.mu.Unlock()
}

func (r *recorder) OnTrim(_ context.Context, t echomq.TrimInfo) {
	r.mu.Lock()
	r.trims = append(r.trims, t)
	r.mu.Unlock()
}

func (r *recorder) snapshot() recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := make(map[string]int, len(r.calls))
	maps.Copy(calls, r.calls)
	return recorder{
		calls: calls, appends: append([]echomq.AppendInfo(nil), r.appends...), reads: append([]echomq.ReadInfo(nil), r.reads...),
		delivers: append([]echomq.DeliverInfo(nil), r.delivers...), acks: append([]echomq.AckInfo(nil), r.acks...),
		deads: append([]echomq.DeadLetterInfo(nil), r.deads...), trims: append([]echomq.TrimInfo(nil), r.trims...), prepared: r.prepared,
	}
}

func TestHooksAppendReadTrim(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), Hooks: []echomq.Hook{rec, "not a hook"}})
	q := echomqtest.Queue(t)
	s := c.Stream(q, "hooked")

	id, err := s.Append(ctx, echomq.F("n", "1"), nil)
	require.NoError(t, err)
	ids, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("n", "2"), echomq.F("n", "3")}, nil)
	require.NoError(t, err)
	_, err = s.Append(ctx, echomq.F("odd"), nil)
	require.ErrorIs(t, err, echomq.ErrInvalidFields)
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	r, err := s.Trim(ctx, echomq.MaxLen(1).Exact())
	require.NoError(t, err)
	require.EqualValues(t, 2, r.Removed)

	got := rec.snapshot()
	require.Len(t, got.appends, 3)
	a := got.appends[0]
	require.Equal(t, q, a.Queue)
	require.Equal(t, "hooked", a.Stream)
	require.Equal(t, id, a.ID)
	require.Equal(t, 1, a.Records)
	require.Zero(t, a.Failed)
	require.NoError(t, a.Err)
	require.Positive(t, a.Duration)
	b := got.appends[1]
	require.True(t, b.Batch)
	require.Equal(t, ids, b.IDs)
	require.Equal(t, 2, b.Records)
	bad := got.appends[2]
	require.ErrorIs(t, bad.Err, echomq.ErrInvalidFields)
	require.Equal(t, 1, bad.Failed)
	require.True(t, bad.ID.IsZero())
	require.Equal(t, 2, got.prepared, "the prepare hook is not called for bad input")

	require.Len(t, got.reads, 1)
	require.Equal(t, 3, got.reads[0].Events)
	require.Len(t, got.trims, 1)
	require.Equal(t, echomq.TrimInfo{Queue: q, Stream: "hooked", By: echomq.TrimByCaller, Removed: 2, Duration: got.trims[0].Duration}, got.trims[0])
	require.Positive(t, got.calls["XADD"], "engine calls: %v", got.calls)
	require.Len(t, echomq.HooksOf[echomq.Hook](c), 2)
	require.Len(t, echomq.HooksOf[echomq.AppendHook](c), 1)
	require.Empty(t, echomq.HooksOf[lanes.JobHook](c), "a feature package finds only the hooks of its own interface")
}

func TestHooksPrepareAddsFields(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	rec.addField = true
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), Hooks: []echomq.Hook{rec}})
	s := c.Stream(echomqtest.Queue(t), "prepared")
	// Spare capacity: a hook appending in place would write into it.
	f := make(echomq.Fields, 2, 8)
	copy(f, []string{"k", "v"})
	_, err := s.Append(ctx, f, nil)
	require.NoError(t, err)
	require.NoError(t, s.AppendID(ctx, mint(t, c, s.Queue(), echomq.BrandEvent), f))
	_, err = s.AppendBatch(ctx, []echomq.Fields{f}, nil)
	require.NoError(t, err)
	require.Equal(t, echomq.F("k", "v"), f)
	require.Empty(t, f[:4][2], "the caller's array is untouched")
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	for _, ev := range evs {
		require.Equal(t, echomq.F("k", "v", "trace", "t-prepared"), ev.Fields)
	}
}

func TestHooksConsumer(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), Hooks: []echomq.Hook{rec}})
	s := c.Stream(echomqtest.Queue(t), "consumed")
	for _, v := range []string{"ok", "bad", "ok"} {
		_, err := s.Append(ctx, echomq.F("v", v), nil)
		require.NoError(t, err)
	}
	boom := errors.New("boom")
	cons, err := c.Consumer(&echomq.ConsumerConfig{
		Queue: s.Queue(), Stream: s.Name(), Group: "g", Start: echomq.StartHead, Logger: discardLog,
		MinIdle: 100 * time.Millisecond, Beat: 20 * time.Millisecond, MaxDeliveries: 2,
		Handle: func(_ context.Context, d echomq.Delivery) error {
			if d.Fields.Value("v") == "bad" {
				return boom
			}
			return nil
		},
	})
	require.NoError(t, err)
	require.NoError(t, cons.Start(ctx))
	require.Eventually(t, func() bool {
		st := cons.Stats()
		return st.Dead == 1 && st.Acked == 2
	}, waitTimeout, 10*time.Millisecond)
	require.NoError(t, cons.Stop(ctx))

	got := rec.snapshot()
	require.Len(t, got.delivers, 4)
	var failed int
	for _, d := range got.delivers {
		if d.Err != nil {
			require.ErrorIs(t, d.Err, boom)
			require.Equal(t, "bad", d.Fields.Value("v"))
			failed++
		}
		require.Equal(t, "g", d.Group)
	}
	require.Equal(t, 2, failed)
	var acked int
	for _, a := range got.acks {
		require.False(t, a.Trimmed)
		require.NoError(t, a.Err)
		acked += a.Entries
	}
	require.Equal(t, 2, acked)
	require.Len(t, got.deads, 1)
	require.Equal(t, "boom", got.deads[0].Cause)
	require.False(t, got.deads[0].Dead.IsZero())
	require.EqualValues(t, 2, got.deads[0].Attempts)
}

func TestGroupLag(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	s := c.Stream(echomqtest.Queue(t), "lagged")
	ids := make([]echomq.ID, 10)
	for i := range ids {
		var err error
		ids[i], err = s.Append(ctx, echomq.F("i", itoa(i)), nil)
		require.NoError(t, err)
	}
	g := s.Group("g")
	_, err := g.Create(ctx, echomq.StartHead)
	require.NoError(t, err)
	lag, err := g.Lag(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, echomq.GroupLag{Lag: 10, Exact: true, EngineLag: 10}, lag)

	_, err = rawcmd.Do(ctx, c, "XREADGROUP", "GROUP", "g", "c1", "COUNT", "4", "STREAMS", s.Key(), ">")
	require.NoError(t, err)
	lag, err = g.Lag(ctx, 0)
	require.NoError(t, err)
	require.EqualValues(t, 6, lag.Lag)
	require.EqualValues(t, 4, lag.Pending)
	require.Equal(t, ids[3].EntryID(), lag.LastDelivered)

	// A deletion above the last delivered id: the engine's lag becomes
	// unknown, ours stays exact.
	_, err = rawcmd.Do(ctx, c, "XDEL", s.Key(), ids[7].EntryID().String())
	require.NoError(t, err)
	_, err = s.Trim(ctx, echomq.MaxLen(7).Exact())
	require.NoError(t, err)
	lag, err = g.Lag(ctx, 0)
	require.NoError(t, err)
	require.EqualValues(t, -1, lag.EngineLag)
	require.Equal(t, int64(5), lag.Lag)
	require.True(t, lag.Exact)

	// Trimmed above the last delivered id: everything left is lag.
	_, err = s.Trim(ctx, echomq.MaxLen(3).Exact())
	require.NoError(t, err)
	lag, err = g.Lag(ctx, 0)
	require.NoError(t, err)
	require.EqualValues(t, 3, lag.Lag)

	// Both sides above the limit: a lower bound, said so.
	big := c.Stream(s.Queue(), "big")
	var mid echomq.ID
	for i := range 9 {
		id, err := big.Append(ctx, echomq.F("i", itoa(i)), nil)
		require.NoError(t, err)
		if i == 4 {
			mid = id
		}
	}
	cnt, err := big.CountAfter(ctx, mid.EntryID(), 2)
	require.NoError(t, err)
	require.Equal(t, echomq.Count{N: 2, Exact: false}, cnt)
	cnt, err = big.CountAfter(ctx, mid.EntryID(), 5)
	require.NoError(t, err)
	require.Equal(t, echomq.Count{N: 4, Exact: true}, cnt)
	cnt, err = big.CountAfter(ctx, echomq.EntryID{}, 1)
	require.NoError(t, err)
	require.Equal(t, echomq.Count{N: 9, Exact: true}, cnt)
}

func TestLagBadInput(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	q := echomqtest.Queue(t)
	for _, tc := range []struct {
		name string
		run  func() error
		want error
	}{
		{"negative limit", func() error { _, err := c.Stream(q, "s").CountAfter(ctx, echomq.EntryID{}, -1); return err }, echomq.ErrInvalidArgument},
		{"limit too large", func() error {
			_, err := c.Stream(q, "s").CountAfter(ctx, echomq.EntryID{}, echomq.MaxCountLimit+1)
			return err
		}, echomq.ErrInvalidArgument},
		{"bad stream", func() error { _, err := c.Stream(q, "a:b").CountAfter(ctx, echomq.EntryID{}, 0); return err }, echomq.ErrInvalidName},
		{"bad group", func() error { _, err := c.Stream(q, "s").Group("a b").Lag(ctx, 0); return err }, echomq.ErrInvalidName},
		{"no group", func() error { _, err := c.Stream(q, "s").Group("none").Lag(ctx, 0); return err }, echomq.ErrGroupNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.run(), tc.want)
		})
	}
	n, err := rawcmd.Do(ctx, c, "EXISTS", c.Stream(q, "s").Key())
	require.NoError(t, err)
	require.EqualValues(t, 0, n, "nothing written")
}

// A transaction's appends reach the AppendHooks once their commit wrote
// them; an attempt that conflicted is not reported.
func TestHooksTransactionAppends(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), Hooks: []echomq.Hook{rec}})
	q := echomqtest.Queue(t)
	var got []echomq.ID
	attempts := 0
	err := tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
		attempts++
		got = got[:0]
		if _, _, err := tx.Get(ctx, "counters", "k"); err != nil {
			return err
		}
		if attempts == 1 {
			// Another writer changes what this attempt read: its commit conflicts.
			if err := tables.Update(ctx, c, q, func(_ context.Context, other *tables.Tx) error {
				return other.Put("counters", "k", []byte("1"))
			}, nil); err != nil {
				return err
			}
		}
		for _, stream := range []string{"opened", "scored"} {
			id, err := tx.Append(ctx, stream, echomq.F("n", "1"))
			if err != nil {
				return err
			}
			got = append(got, id)
		}
		return tx.Put("counters", "k", []byte("2"))
	}, nil)
	require.NoError(t, err)
	require.Equal(t, 2, attempts, "the first commit conflicted")

	seen := rec.snapshot()
	require.Len(t, seen.appends, 2, "only the commit that wrote is reported")
	for i, stream := range []string{"opened", "scored"} {
		a := seen.appends[i]
		require.Equal(t, q, a.Queue)
		require.Equal(t, stream, a.Stream)
		require.Equal(t, got[i], a.ID)
		require.Equal(t, 1, a.Records)
		require.Zero(t, a.Failed)
		require.NoError(t, a.Err)
		require.Positive(t, a.Duration)
	}
	require.Zero(t, seen.prepared, "a transaction's fields go out as written")
}
