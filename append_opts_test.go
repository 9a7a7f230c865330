package echomq_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// testSkewDoor (conformance): AppendID one hour ahead is a *SkewError and
// leaves no key; a top written one hour ahead by a raw XADD makes Append
// return the *SkewError naming the top, writing nothing.
func testSkewDoor(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "skew")
	ahead := echomq.MustID(echomq.BrandEvent, echomq.SnowflakeAt(time.Now().Add(time.Hour)))
	err := s.AppendID(ctx, ahead, echomq.F("k", "v"))
	require.ErrorIs(t, err, echomq.ErrClockSkew)
	var se *echomq.SkewError
	require.ErrorAs(t, err, &se)
	require.False(t, se.Top)
	require.Equal(t, ahead.Time(), se.Instant)
	require.InDelta(t, time.Hour.Seconds(), se.Instant.Sub(se.Engine).Seconds(), 60)
	require.False(t, exists(t, c, s.Key()), "a refused id leaves no key behind")

	_, err = rawcmd.Do(ctx, c, "XADD", s.Key(), ahead.EntryID().String(), "id", ahead.String())
	require.NoError(t, err)
	_, err = s.Append(ctx, echomq.F("k", "v"), nil)
	require.ErrorAs(t, err, &se)
	require.True(t, se.Top)
	require.Equal(t, ahead.Time(), se.Instant)
	n := streamLen(t, s)
	require.EqualValues(t, 1, n, "nothing written above the future top")
}

// testIdempotentAppend (conformance): a repeat of a key returns the first
// receipt and writes nothing; a batch key returns the whole batch; the key
// lives on the stream's slot and expires by itself.
func testIdempotentAppend(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "idem")
	opts := &echomq.AppendOpts{Key: "order-17"}
	first, err := s.Append(ctx, echomq.F("n", "1"), opts)
	require.NoError(t, err)
	again, err := s.Append(ctx, echomq.F("n", "2"), opts)
	require.NoError(t, err)
	require.Equal(t, first, again)
	ids, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("n", "3"), echomq.F("n", "4")}, &echomq.AppendOpts{Key: "batch-1"})
	require.NoError(t, err)
	ids2, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("n", "3"), echomq.F("n", "4")}, &echomq.AppendOpts{Key: "batch-1"})
	require.NoError(t, err)
	require.Equal(t, ids, ids2)
	_, err = s.Append(ctx, echomq.F("n", "5"), &echomq.AppendOpts{Key: "batch-1"})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument, "a batch's key is not one record's")
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	require.Equal(t, []echomq.ID{first, ids[0], ids[1]}, []echomq.ID{evs[0].ID, evs[1].ID, evs[2].ID})
	ttl, err := rawcmd.Do(ctx, c, "PTTL", s.Key()+":key:order-17")
	require.NoError(t, err)
	require.Positive(t, ttl, "the key expires by itself")
}

// testIdempotentAboveTop (conformance): a keyed append whose id falls below
// the top (another node wrote 1 s ahead) is refused by the lean script,
// which releases the key it claimed, and arbitrated: the receipt lies above
// the top, a repeat returns it, the key expires by itself. A keyed append on
// a key of the wrong type leaves no idempotency key behind.
func testIdempotentAboveTop(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "idem-above")
	snow, err := echomq.NewSnowflake(time.Now().Add(time.Second).UnixMilli()-echomq.Epoch, 1000, 7)
	require.NoError(t, err)
	top := echomq.MustID(echomq.BrandEvent, snow)
	_, err = rawcmd.Do(ctx, c, "XADD", s.Key(), top.EntryID().String(), "id", top.String())
	require.NoError(t, err)
	opts := &echomq.AppendOpts{Key: "above-1"}
	first, err := s.Append(ctx, echomq.F("n", "1"), opts)
	require.NoError(t, err)
	require.Positive(t, first.EntryID().Compare(top.EntryID()), "the receipt lies above the top")
	again, err := s.Append(ctx, echomq.F("n", "2"), opts)
	require.NoError(t, err)
	require.Equal(t, first, again)
	require.EqualValues(t, 2, streamLen(t, s))
	ttl, err := rawcmd.Do(ctx, c, "PTTL", s.Key()+":key:above-1")
	require.NoError(t, err)
	require.Positive(t, ttl)

	wrong := c.Stream(q, "idem-wrong")
	_, err = rawcmd.Do(ctx, c, "SET", wrong.Key(), "not a stream")
	require.NoError(t, err)
	_, err = wrong.Append(ctx, echomq.F("n", "1"), &echomq.AppendOpts{Key: "w-1"})
	require.ErrorIs(t, err, echomq.ErrWrongType)
	require.False(t, exists(t, c, wrong.Key()+":key:w-1"), "a refused keyed append leaves no key")
}

// testExpectTop (conformance): an append that requires the top (or an
// empty stream) writes only when it holds; otherwise *ConflictError with the
// actual top. A batch is all or nothing.
func testExpectTop(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "expect")
	first, err := s.Append(ctx, echomq.F("n", "1"), &echomq.AppendOpts{ExpectEmpty: true})
	require.NoError(t, err)
	_, err = s.Append(ctx, echomq.F("n", "x"), &echomq.AppendOpts{ExpectEmpty: true})
	var ce *echomq.ConflictError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, err, echomq.ErrConflict)
	require.Equal(t, first, ce.Top)
	second, err := s.Append(ctx, echomq.F("n", "2"), &echomq.AppendOpts{ExpectTop: first})
	require.NoError(t, err)
	_, err = s.AppendBatch(ctx, []echomq.Fields{echomq.F("n", "y"), echomq.F("n", "z")}, &echomq.AppendOpts{ExpectTop: first})
	require.ErrorAs(t, err, &ce)
	require.Equal(t, second, ce.Top)
	require.Equal(t, ce.Expected, first)
	ids, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("n", "3"), echomq.F("n", "4")}, &echomq.AppendOpts{ExpectTop: second})
	require.NoError(t, err)
	n := streamLen(t, s)
	require.EqualValues(t, 4, n, "the refused batch wrote nothing")
	latest, err := echomq.ReadLatest(ctx, s, 1)
	require.NoError(t, err)
	require.Equal(t, ids[1], latest[0].ID)
}

// TestAppendOptionsRefused: bad options are typed errors before any I/O.
func TestAppendOptionsRefused(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	s := c.Stream(echomqtest.Queue(t), "opts")
	job := echomq.MustID("JOB", 1)
	evt := mint(t, c, s.Queue(), echomq.BrandEvent)
	for _, tc := range []struct {
		name string
		opts *echomq.AppendOpts
		want error
	}{
		{"key too long", &echomq.AppendOpts{Key: strings.Repeat("k", 257)}, echomq.ErrInvalidArgument},
		{"expect wrong kind", &echomq.AppendOpts{ExpectTop: job}, echomq.ErrWrongKind},
		{"expect top and empty", &echomq.AppendOpts{ExpectTop: evt, ExpectEmpty: true}, echomq.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Append(ctx, echomq.F("k", "v"), tc.opts)
			require.ErrorIs(t, err, tc.want)
			_, err = s.AppendBatch(ctx, []echomq.Fields{echomq.F("k", "v")}, tc.opts)
			require.ErrorIs(t, err, tc.want)
		})
	}
	require.False(t, exists(t, c, s.Key()), "nothing written")
}

// TestWriterClockAhead: a writer whose own clock runs an hour ahead still
// appends at the engine's time (the script replaces its proposals).
func TestWriterClockAhead(t *testing.T) {
	t.Parallel()
	ahead := func() time.Time { return time.Now().Add(time.Hour) }
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), NodeID: new(3), Clock: ahead})
	s := c.Stream(echomqtest.Queue(t), "ahead")
	for range 20 {
		id, err := s.Append(ctx, echomq.F("k", "v"), nil)
		require.NoError(t, err)
		engine, err := c.EngineTime(ctx)
		require.NoError(t, err)
		require.LessOrEqual(t, id.Time().Sub(engine), maxLead, "the receipt is at the engine's time")
	}
	ids, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("a", "1"), echomq.F("a", "2")}, nil)
	require.NoError(t, err)
	engine, err := c.EngineTime(ctx)
	require.NoError(t, err)
	require.LessOrEqual(t, ids[1].Time().Sub(engine), maxLead)
}

// TestIdempotentLostReply: the reply of an append is lost on the way back
// (the proxy drops the connection after forwarding it); the retry with the
// same key returns the same receipt and the stream holds one entry.
func TestIdempotentLostReply(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Shared(t)
	proxy := echomqtest.NewProxy(t, srv.Addr())
	c := connect(t, echomq.Config{URL: proxy.URL(), NodeID: new(11)})
	q := echomqtest.Queue(t)
	// Load the scripts first (the lean keyed one and the arbitrating one),
	// so the marked call is the append itself, not a NOSCRIPT round.
	_, err := c.Stream(q, "warm").Append(ctx, echomq.F("k", "v"), &echomq.AppendOpts{Key: "warm"})
	require.NoError(t, err)
	_, err = c.Stream(q, "warm-script").Append(ctx, echomq.F("k", "v"), &echomq.AppendOpts{ExpectEmpty: true})
	require.NoError(t, err)
	s := c.Stream(q, "lost")
	proxy.DropReplyTo("lost-reply-key")
	_, err = s.Append(ctx, echomq.F("k", "v"), &echomq.AppendOpts{Key: "lost-reply-key"})
	require.Error(t, err, "the reply was lost")
	require.EqualValues(t, 1, proxy.Dropped())
	direct := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(12)})
	evs, err := direct.Stream(q, "lost").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 1, "the append ran although its caller saw an error")
	var id echomq.ID
	require.Eventually(t, func() bool { // the client reconnects on its own
		id, err = s.Append(ctx, echomq.F("k", "v"), &echomq.AppendOpts{Key: "lost-reply-key"})
		return err == nil
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, evs[0].ID, id, "the retry returns the original receipt")
	n := streamLen(t, s)
	require.EqualValues(t, 1, n, "exactly one entry")
}

// TestIdempotentRace: two processes append with one key at the same
// instant; one entry is written and both get its receipt.
func TestIdempotentRace(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	q := echomqtest.Queue(t)
	for round := range 3 {
		key := "race-" + strconv.Itoa(round)
		runs := runWriters(t, url, q, "race", "key", []int{21, 22}, 0, "EMQ_AW_KEY="+key)
		require.Len(t, runs[0].receipts, 1)
		require.Len(t, runs[1].receipts, 1)
		require.Equal(t, runs[0].receipts[0], runs[1].receipts[0])
	}
	c := connect(t, echomq.Config{URL: url, NodeID: new(23)})
	n := streamLen(t, c.Stream(q, "race"))
	require.EqualValues(t, 3, n, "one entry per key")
}

// TestIdempotencyWindow: after the dedupe window the key is free again: the
// engine expired it (polled with PTTL, not slept on) and the same key
// appends a new event.
func TestIdempotencyWindow(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), DedupeWindow: time.Second})
	s := c.Stream(echomqtest.Queue(t), "window")
	opts := &echomq.AppendOpts{Key: "k1"}
	first, err := s.Append(ctx, echomq.F("n", "1"), opts)
	require.NoError(t, err)
	ttl, err := rawcmd.Do(ctx, c, "PTTL", s.Key()+":key:k1")
	require.NoError(t, err)
	require.LessOrEqual(t, ttl, int64(1000))
	require.Eventually(t, func() bool {
		v, err := rawcmd.Do(ctx, c, "PTTL", s.Key()+":key:k1")
		return err == nil && v == int64(-2)
	}, 30*time.Second, 50*time.Millisecond)
	second, err := s.Append(ctx, echomq.F("n", "2"), opts)
	require.NoError(t, err)
	require.NotEqual(t, first, second)
	n := streamLen(t, s)
	require.EqualValues(t, 2, n)
}

// TestExpectTopRace: 8 writers race "append if the top is X" round after
// round; exactly one wins each round and every other gets ErrConflict
// naming the winner.
func TestExpectTopRace(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	q := echomqtest.Queue(t)
	writers := make([]*echomq.Stream, 8)
	for i := range writers {
		writers[i] = connect(t, echomq.Config{URL: url, NodeID: new(100 + i)}).Stream(q, "cas")
	}
	top, err := writers[0].Append(ctx, echomq.F("round", "0"), &echomq.AppendOpts{ExpectEmpty: true})
	require.NoError(t, err)
	for round := 1; round <= 20; round++ {
		var wg sync.WaitGroup
		ids := make([]echomq.ID, len(writers))
		errs := make([]error, len(writers))
		for i, w := range writers {
			wg.Go(func() {
				ids[i], errs[i] = w.Append(ctx, echomq.F("round", strconv.Itoa(round), "w", strconv.Itoa(i)), &echomq.AppendOpts{ExpectTop: top})
			})
		}
		wg.Wait()
		var winner echomq.ID
		wins := 0
		for i, err := range errs {
			if err == nil {
				wins++
				winner = ids[i]
			}
		}
		require.Equal(t, 1, wins, "round %d", round)
		for _, err := range errs {
			if err != nil {
				var ce *echomq.ConflictError
				require.ErrorAs(t, err, &ce, "round %d: %v", round, err)
				require.Equal(t, winner, ce.Top)
			}
		}
		top = winner
	}
	n := streamLen(t, writers[0])
	require.EqualValues(t, 21, n)
}

// streamLen is the stream's XLEN.
func streamLen(t *testing.T, s *echomq.Stream) int64 {
	t.Helper()
	info, err := s.Info(ctx)
	require.NoError(t, err)
	return info.Length
}
