package echomq_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/rawcmd"
)

// target opens a client on one engine for one test.
type target func(t *testing.T) *echomq.Client

// serverTarget connects to the shared redis-server the harness started.
func serverTarget(t *testing.T) *echomq.Client {
	t.Helper()
	return connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
}

// embeddedTarget starts a private embedded engine.
func embeddedTarget(t *testing.T) *echomq.Client {
	t.Helper()
	return connect(t, echomq.Config{URL: embedded.URL})
}

func connect(t *testing.T, cfg echomq.Config) *echomq.Client {
	t.Helper()
	if cfg.Notice == nil {
		cfg.Notice = io.Discard
	}
	c, err := echomq.Connect(context.Background(), &cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

func TestConformanceServer(t *testing.T) {
	t.Parallel()
	runConformance(t, serverTarget)
}

func TestConformanceEmbedded(t *testing.T) {
	t.Parallel()
	runConformance(t, embeddedTarget)
}

// runConformance is the one conformance suite of the stream verbs, run on
// every engine.
func runConformance(t *testing.T, open target) {
	for name, test := range map[string]func(*testing.T, *echomq.Client, string){
		"AppendReadBack":        testAppendReadBack,
		"RawEntryShape":         testRawEntryShape,
		"KindDoorWritesNothing": testKindDoor,
		"NonMonotonic":          testNonMonotonic,
		"SkewDoor":              testSkewDoor,
		"IdempotentAppend":      testIdempotentAppend,
		"IdempotentAboveTop":    testIdempotentAboveTop,
		"ExpectTop":             testExpectTop,
		"WrongType":             testWrongType,
		"RefusedBeforeIO":       testRefusedBeforeIO,
		"CountOldest":           testCountOldest,
		"WindowEdges":           testWindowEdges,
		"WindowEqualsFiltered":  testWindowEqualsFiltered,
		"TrimExact":             testTrimExact,
		"TrimApproximate":       testTrimApproximate,
		"Watermark":             testWatermark,
		"Batch":                 testBatch,
		"ScanPages":             testScanPages,
		"Follow":                testFollow,
		"Info":                  testInfo,
		"CountAfter":            testCountAfter,
		"ContendedAppend":       testContendedAppend,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, open(t), echomqtest.Queue(t))
		})
	}
}

var ctx = context.Background()

// at mints an EVT id at a fixed instant with the given tail.
func at(t *testing.T, tm time.Time, node, seq int) echomq.ID {
	t.Helper()
	s, err := echomq.NewSnowflake(tm.UnixMilli()-echomq.Epoch, node, seq)
	require.NoError(t, err)
	return echomq.MustID(echomq.BrandEvent, s)
}

func ids(evs []echomq.Event) []echomq.ID {
	var out []echomq.ID
	for _, e := range evs {
		out = append(out, e.ID)
	}
	return out
}

func exists(t *testing.T, c *echomq.Client, key string) bool {
	t.Helper()
	n, err := rawcmd.Do(ctx, c, "EXISTS", key)
	require.NoError(t, err)
	return n.(int64) == 1
}

func testAppendReadBack(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "room-opened")
	var receipts []echomq.ID
	for i := range 5 {
		id, err := s.Append(ctx, echomq.F("room", fmt.Sprintf("ROM%d", i), "seat", "2", "emoji", "🎯"), nil)
		require.NoError(t, err)
		require.Equal(t, echomq.BrandEvent, id.Brand())
		receipts = append(receipts, id)
	}
	require.True(t, slices.IsSortedFunc(receipts, echomq.ID.Compare))
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, receipts, ids(evs))
	for i, ev := range evs {
		require.Equal(t, echomq.F("room", fmt.Sprintf("ROM%d", i), "seat", "2", "emoji", "🎯"), ev.Fields)
		require.Equal(t, ev.ID.EntryID(), ev.Entry)
	}
	latest, err := echomq.ReadLatest(ctx, s, 2)
	require.NoError(t, err)
	require.Equal(t, []echomq.ID{receipts[4], receipts[3]}, ids(latest))
	rev, err := s.Read(ctx, echomq.All, &echomq.ReadOpts{Reverse: true})
	require.NoError(t, err)
	require.Equal(t, receipts, reversed(ids(rev)))
}

func testRawEntryShape(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "guess-scored")
	id, err := s.Append(ctx, echomq.F("k", "v", "bin", "\x00\xff"), nil)
	require.NoError(t, err)
	raw, err := rawcmd.Do(ctx, c, "XRANGE", s.Key(), "-", "+")
	require.NoError(t, err)
	require.Equal(t, []any{[]any{id.EntryID().String(), []any{"id", id.String(), "k", "v", "bin", "\x00\xff"}}}, raw)
}

func testKindDoor(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "door")
	job := echomq.MustID("JOB", 12345)
	err := s.AppendID(ctx, job, echomq.F("k", "v"))
	require.ErrorIs(t, err, echomq.ErrWrongKind)
	var ke *echomq.KindError
	require.ErrorAs(t, err, &ke)
	require.Equal(t, "JOB", ke.Got)
	require.ErrorIs(t, s.AppendID(ctx, echomq.ID{}, echomq.F("k", "v")), echomq.ErrMalformedID)
	_, err = echomq.ParseEventID("EVT-not-an-id")
	require.ErrorIs(t, err, echomq.ErrMalformedID)
	require.False(t, exists(t, c, s.Key()), "a refused id leaves no key behind")
}

func testNonMonotonic(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "mono")
	now := time.Now()
	newer, older := at(t, now, 5, 1), at(t, now.Add(-time.Second), 5, 1)
	require.NoError(t, s.AppendID(ctx, newer, echomq.F("n", "1")))
	err := s.AppendID(ctx, older, echomq.F("n", "2"))
	require.ErrorIs(t, err, echomq.ErrNonMonotonic)
	require.ErrorIs(t, s.AppendID(ctx, newer, echomq.F("n", "3")), echomq.ErrNonMonotonic, "equal is not above")
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, info.Length)
	// Append (minted) still works: it follows a top the caller set ahead,
	// as long as that is within MaxSkew (5s by default).
	future := at(t, now.Add(2*time.Second), 1023, 4095)
	require.NoError(t, s.AppendID(ctx, future, nil))
	id, err := s.Append(ctx, echomq.F("after", "future"), nil)
	require.NoError(t, err)
	require.Equal(t, 1, id.Compare(future))
}

func testWrongType(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "taken")
	_, err := rawcmd.Do(ctx, c, "SET", s.Key(), "a string")
	require.NoError(t, err)
	_, err = s.Append(ctx, echomq.F("k", "v"), nil)
	require.ErrorIs(t, err, echomq.ErrWrongType)
	require.NotErrorIs(t, err, echomq.ErrNonMonotonic)
	var se *echomq.ServerError
	require.ErrorAs(t, err, &se)
	require.Equal(t, "WRONGTYPE", se.Prefix)
	_, err = s.AppendBatch(ctx, []echomq.Fields{echomq.F("k", "v")}, nil)
	require.ErrorIs(t, err, echomq.ErrWrongType)
	_, err = s.Read(ctx, echomq.All, nil)
	require.ErrorIs(t, err, echomq.ErrWrongType)
	_, err = s.Trim(ctx, echomq.MaxLen(1).Exact())
	require.ErrorIs(t, err, echomq.ErrWrongType)
	_, err = s.Info(ctx)
	require.ErrorIs(t, err, echomq.ErrWrongType)
}

func testRefusedBeforeIO(t *testing.T, c *echomq.Client, q string) {
	// Validation runs before the closed check, so a closed client proves
	// that no I/O was attempted.
	closed := connect(t, echomq.Config{URL: embedded.URL, Notice: io.Discard})
	require.NoError(t, closed.Close())
	now := time.Now()
	for _, tc := range []struct {
		name string
		call func(c *echomq.Client) error
		want error
	}{
		{"bad queue", func(c *echomq.Client) error { _, err := c.Stream("a:b", "s").Append(ctx, nil, nil); return err }, echomq.ErrInvalidName},
		{"reserved queue", func(c *echomq.Client) error { _, err := c.Stream("emq", "s").Append(ctx, nil, nil); return err }, echomq.ErrInvalidName},
		{"empty stream", func(c *echomq.Client) error { _, err := c.Stream(q, "").Read(ctx, echomq.All, nil); return err }, echomq.ErrInvalidName},
		{"archived suffix", func(c *echomq.Client) error { _, err := c.Stream(q, "s:archived").Append(ctx, nil, nil); return err }, echomq.ErrInvalidName},
		{"brace", func(c *echomq.Client) error { _, err := c.Stream(q, "{x}").Trim(ctx, echomq.MaxLen(1)); return err }, echomq.ErrInvalidName},
		{"space", func(c *echomq.Client) error { return archive.SetWatermark(ctx, c.Stream(q, "a b"), at(t, now, 0, 0)) }, echomq.ErrInvalidName},
		{"too long", func(c *echomq.Client) error {
			_, _, err := archive.Watermark(ctx, c.Stream(q, string(make([]byte, 129))))
			return err
		}, echomq.ErrInvalidName},
		{"reserved field", func(c *echomq.Client) error {
			_, err := c.Stream(q, "s").Append(ctx, echomq.F("id", "x"), nil)
			return err
		}, echomq.ErrReservedField},
		{"reserved field later", func(c *echomq.Client) error {
			_, err := c.Stream(q, "s").Append(ctx, echomq.F("a", "1", "id", "x"), nil)
			return err
		}, echomq.ErrReservedField},
		{"odd fields", func(c *echomq.Client) error { _, err := c.Stream(q, "s").Append(ctx, echomq.F("a"), nil); return err }, echomq.ErrInvalidFields},
		{"batch reserved", func(c *echomq.Client) error {
			_, err := c.Stream(q, "s").AppendBatch(ctx, []echomq.Fields{echomq.F("a", "1"), echomq.F("id", "2")}, nil)
			return err
		}, echomq.ErrReservedField},
		{"inverted window", func(c *echomq.Client) error {
			_, err := c.Stream(q, "s").Read(ctx, echomq.Window(now, now.Add(-time.Millisecond)), nil)
			return err
		}, echomq.ErrInvalidRange},
		{"inverted range", func(c *echomq.Client) error {
			_, err := c.Stream(q, "s").Read(ctx, echomq.Span(echomq.Inclusive(echomq.EntryID{Ms: 9}), echomq.Inclusive(echomq.EntryID{Ms: 8})), nil)
			return err
		}, echomq.ErrInvalidRange},
		{"negative count", func(c *echomq.Client) error {
			_, err := c.Stream(q, "s").Read(ctx, echomq.All, &echomq.ReadOpts{Count: -1})
			return err
		}, echomq.ErrInvalidArgument},
		{"negative maxlen", func(c *echomq.Client) error { _, err := c.Stream(q, "s").Trim(ctx, echomq.MaxLen(-1)); return err }, echomq.ErrInvalidArgument},
		{"latest zero", func(c *echomq.Client) error { _, err := echomq.ReadLatest(ctx, c.Stream(q, "s"), 0); return err }, echomq.ErrInvalidArgument},
		{"wrong kind watermark", func(c *echomq.Client) error {
			return archive.SetWatermark(ctx, c.Stream(q, "s"), echomq.MustID("JOB", 1))
		}, echomq.ErrWrongKind},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.call(c), tc.want)
			require.ErrorIs(t, tc.call(closed), tc.want, "refused before any I/O")
		})
	}
	keys, err := rawcmd.Do(ctx, c, "KEYS", "emq:{"+q+"}:*")
	require.NoError(t, err)
	require.Empty(t, keys, "nothing was written")
}

func testCountOldest(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "count")
	var all []echomq.ID
	for i := range 6 {
		id, err := s.Append(ctx, echomq.F("i", strconv.Itoa(i)), nil)
		require.NoError(t, err)
		all = append(all, id)
	}
	evs, err := s.Read(ctx, echomq.All, &echomq.ReadOpts{Count: 2})
	require.NoError(t, err)
	require.Equal(t, all[:2], ids(evs))
	evs, err = s.Read(ctx, echomq.Span(echomq.After(all[1]), echomq.Unbounded), &echomq.ReadOpts{Count: 1})
	require.NoError(t, err)
	require.Equal(t, all[2:3], ids(evs), "exclusive lower bound")
	evs, err = s.Read(ctx, echomq.Between(all[1], all[3]), nil)
	require.NoError(t, err)
	require.Equal(t, all[1:4], ids(evs))
}

// appendAt appends one event per instant (with the tails given) and returns
// the ids.
func appendAt(t *testing.T, s *echomq.Stream, base time.Time, offsetsMs []int) []echomq.ID {
	t.Helper()
	var out []echomq.ID
	seq := 0
	for _, off := range offsetsMs {
		seq++
		id := at(t, base.Add(time.Duration(off)*time.Millisecond), 1, seq)
		require.NoError(t, s.AppendID(ctx, id, echomq.F("off", strconv.Itoa(off))))
		out = append(out, id)
	}
	return out
}

func testWindowEdges(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "window")
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(300 * time.Millisecond)
	got := appendAt(t, s, t0, []int{-1, 0, 0, 100, 300, 300, 301})
	evs, err := s.Read(ctx, echomq.Window(t0, t1), nil)
	require.NoError(t, err)
	require.Equal(t, got[1:6], ids(evs), "t0-1ms out, t0 in, t1 in, t1+1ms out")
	evs, err = s.Read(ctx, echomq.Window(t0, t0), nil)
	require.NoError(t, err)
	require.Equal(t, got[1:3], ids(evs), "[t, t] holds the entries minted at t")
	evs, err = s.Read(ctx, echomq.Window(t0, t1), &echomq.ReadOpts{Count: 2})
	require.NoError(t, err)
	require.Equal(t, got[1:3], ids(evs))
	evs, err = s.Read(ctx, echomq.Since(t1), nil)
	require.NoError(t, err)
	require.Equal(t, got[4:], ids(evs))
	evs, err = s.Read(ctx, echomq.Window(t0.Add(-time.Hour), t0.Add(-time.Minute)), nil)
	require.NoError(t, err)
	require.Empty(t, evs)
	_, err = s.Read(ctx, echomq.Window(t1, t0), nil)
	require.ErrorIs(t, err, echomq.ErrInvalidRange)
}

func testWindowEqualsFiltered(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "filtered")
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var offs []int
	for i := range 120 {
		offs = append(offs, i/3*7) // three entries per millisecond, gaps between
	}
	appendAt(t, s, base, offs)
	all, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	for _, w := range [][2]int{{0, 0}, {7, 14}, {8, 13}, {-5, 3}, {100, 1000}, {0, 273}, {273, 273}} {
		t0, t1 := base.Add(time.Duration(w[0])*time.Millisecond), base.Add(time.Duration(w[1])*time.Millisecond)
		got, err := s.Read(ctx, echomq.Window(t0, t1), nil)
		require.NoError(t, err)
		var want []echomq.ID
		for _, ev := range all {
			if !ev.ID.Time().Before(t0) && !ev.ID.Time().After(t1) {
				want = append(want, ev.ID)
			}
		}
		require.Equal(t, want, ids(got), "window %v", w)
	}
}

func testTrimExact(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "trim")
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	got := appendAt(t, s, base, []int{0, 1, 2, 3, 4, 5})
	r, err := s.Trim(ctx, echomq.MaxLen(4).Exact())
	require.NoError(t, err)
	require.EqualValues(t, 2, r.Removed)
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, got[2:], ids(evs))
	r, err = s.Trim(ctx, echomq.MinTime(base.Add(4*time.Millisecond)).Exact())
	require.NoError(t, err)
	require.EqualValues(t, 2, r.Removed, "t-1ms trimmed, t kept")
	evs, err = s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, got[4:], ids(evs))
	r, err = c.Stream(q, "never-written").Trim(ctx, echomq.MaxLen(0).Exact())
	require.NoError(t, err)
	require.Zero(t, r.Removed)
}

func testTrimApproximate(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "approx")
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var offs []int
	for i := range 400 {
		offs = append(offs, i)
	}
	got := appendAt(t, s, base, offs)
	r, err := s.Trim(ctx, echomq.MaxLen(150))
	require.NoError(t, err)
	require.LessOrEqual(t, r.Removed, int64(250), "never over-trims")
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, got[len(got)-len(evs):], ids(evs), "only the oldest are removed")
	require.GreaterOrEqual(t, len(evs), 150)
	r, err = s.Trim(ctx, echomq.MinTime(base.Add(300*time.Millisecond)))
	require.NoError(t, err)
	evs, err = s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(evs), 100, "an approximate trim never removes an entry inside the window")
	require.Equal(t, got[300:], ids(evs)[len(evs)-100:])
	require.GreaterOrEqual(t, r.Removed, int64(0))
}

func testWatermark(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "wm")
	_, ok, err := archive.Watermark(ctx, s)
	require.NoError(t, err)
	require.False(t, ok, "absent is an answer, not an error")
	w1, w2 := at(t, time.Now(), 1, 1), at(t, time.Now(), 1, 2)
	require.NoError(t, archive.SetWatermark(ctx, s, w1))
	got, ok, err := archive.Watermark(ctx, s)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, w1, got)
	require.NoError(t, archive.SetWatermark(ctx, s, w2))
	got, _, err = archive.Watermark(ctx, s)
	require.NoError(t, err)
	require.Equal(t, w2, got)
	raw, err := rawcmd.Do(ctx, c, "GET", s.Key()+":archived")
	require.NoError(t, err)
	require.Equal(t, w2.String(), raw, "the cache is a plain string holding W")
	cleared, err := archive.ClearWatermark(ctx, s)
	require.NoError(t, err)
	require.True(t, cleared)
	cleared, err = archive.ClearWatermark(ctx, s)
	require.NoError(t, err)
	require.False(t, cleared)
	_, ok, err = archive.Watermark(ctx, s)
	require.NoError(t, err)
	require.False(t, ok)
	_, err = rawcmd.Do(ctx, c, "SET", s.Key()+":archived", "garbage")
	require.NoError(t, err)
	_, _, err = archive.Watermark(ctx, s)
	require.ErrorIs(t, err, echomq.ErrMalformedID)
}

func testBatch(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "batch")
	got, err := s.AppendBatch(ctx, nil, nil)
	require.NoError(t, err)
	require.Empty(t, got)
	require.False(t, exists(t, c, s.Key()), "an empty batch is a no-op")
	recs := []echomq.Fields{echomq.F("n", "0"), echomq.F("n", "1"), nil, echomq.F("n", "3", "x", "y")}
	got, err = s.AppendBatch(ctx, recs, nil)
	require.NoError(t, err)
	require.Len(t, got, 4)
	require.True(t, slices.IsSortedFunc(got, echomq.ID.Compare))
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, got, ids(evs))
	for i, ev := range evs {
		require.Len(t, ev.Fields, len(recs[i]))
	}
	// A per-record failure is reported, not swallowed.
	other := c.Stream(q, "batch-taken")
	_, err = rawcmd.Do(ctx, c, "SET", other.Key(), "x")
	require.NoError(t, err)
	got, err = other.AppendBatch(ctx, recs[:2], nil)
	var be *echomq.BatchError
	require.ErrorAs(t, err, &be)
	require.Equal(t, 2, be.Failed)
	require.ErrorIs(t, err, echomq.ErrWrongType)
	require.True(t, got[0].IsZero())
}

func testScanPages(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "scan")
	recs := make([]echomq.Fields, 257)
	for i := range recs {
		recs[i] = echomq.F("i", strconv.Itoa(i))
	}
	want, err := s.AppendBatch(ctx, recs, nil)
	require.NoError(t, err)
	for _, page := range []int{1, 2, 10, 256, 257, 1000} {
		var got []echomq.ID
		for ev, err := range s.Scan(ctx, echomq.All, &echomq.ScanOpts{PageSize: page}) {
			require.NoError(t, err)
			got = append(got, ev.ID)
		}
		require.Equal(t, want, got, "page %d", page)
		got = got[:0]
		for ev, err := range s.Scan(ctx, echomq.Between(want[10], want[200]), &echomq.ScanOpts{PageSize: page, Reverse: true}) {
			require.NoError(t, err)
			got = append(got, ev.ID)
		}
		require.Equal(t, want[10:201], reversed(got), "reverse page %d", page)
	}
	n := 0
	for range s.Scan(ctx, echomq.All, &echomq.ScanOpts{PageSize: 7}) {
		n++
		if n == 20 {
			break
		}
	}
	require.Equal(t, 20, n, "stopping early stops the paging")
	for _, err := range s.Scan(ctx, echomq.All, &echomq.ScanOpts{PageSize: -1}) {
		require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	}
}

func testFollow(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "follow")
	old, err := s.Append(ctx, echomq.F("n", "old"), nil)
	require.NoError(t, err)
	fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	started := make(chan struct{})
	var got []echomq.ID
	done := make(chan struct{})
	go func() {
		defer close(done)
		first := true
		for ev, err := range s.Follow(fctx, &echomq.FollowOpts{From: echomq.At(old), Block: 100 * time.Millisecond}) {
			if !assert.NoError(t, err) {
				return
			}
			got = append(got, ev.ID)
			if first {
				close(started)
				first = false
			}
			if len(got) == 4 {
				return
			}
		}
	}()
	echomqtest.Recv(t, started, waitTimeout, "the follower's first entry")
	var want []echomq.ID
	want = append(want, old)
	for i := range 3 {
		id, err := s.Append(ctx, echomq.F("n", strconv.Itoa(i)), nil)
		require.NoError(t, err)
		want = append(want, id)
	}
	echomqtest.Recv(t, done, waitTimeout, "the follower's four entries")
	require.Equal(t, want, got, "replay from the bound, then the tail, no gap")

	// Without a bound it yields only what is appended after it starts, and
	// a cancelled context ends it without an error.
	lctx, lcancel := context.WithCancel(ctx)
	var live []echomq.ID
	liveDone := make(chan struct{})
	go func() {
		defer close(liveDone)
		for ev, err := range s.Follow(lctx, &echomq.FollowOpts{Block: 50 * time.Millisecond}) {
			if !assert.NoError(t, err) {
				return
			}
			live = append(live, ev.ID)
			lcancel()
		}
	}()
	var next echomq.ID
	require.Eventually(t, func() bool {
		// Keep appending until the follower (which starts at the top) sees one.
		id, err := s.Append(ctx, echomq.F("n", "live"), nil)
		require.NoError(t, err)
		next = id
		select {
		case <-liveDone:
			return true
		case <-time.After(20 * time.Millisecond):
			return false
		}
	}, 10*time.Second, time.Millisecond)
	require.Len(t, live, 1)
	require.Equal(t, 1, live[0].Compare(want[3]), "nothing from before the start")
	require.LessOrEqual(t, live[0].Compare(next), 0)
}

func testInfo(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "info")
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.False(t, info.Exists)
	a, err := s.Append(ctx, echomq.F("n", "1"), nil)
	require.NoError(t, err)
	b, err := s.Append(ctx, echomq.F("n", "2"), nil)
	require.NoError(t, err)
	info, err = s.Info(ctx)
	require.NoError(t, err)
	require.True(t, info.Exists)
	require.EqualValues(t, 2, info.Length)
	require.Equal(t, a, info.First.ID)
	require.Equal(t, b, info.Last.ID)
	require.Equal(t, b.EntryID(), info.LastGenerated)
}

func reversed(in []echomq.ID) []echomq.ID {
	out := slices.Clone(in)
	slices.Reverse(out)
	return out
}
