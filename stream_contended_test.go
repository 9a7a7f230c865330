package echomq

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// contendedEngines runs test on the shared redis-server and on a private
// embedded engine: the contended script must behave the same on both.
func contendedEngines(t *testing.T, test func(t *testing.T, c *Client, q string, server bool)) {
	for name, url := range map[string]func() string{
		"server":   func() string { return echomqtest.Shared(t).URL() },
		"embedded": func() string { return embedded.URL },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := Connect(context.Background(), &Config{URL: url(), NodeID: new(5), Notice: io.Discard})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, c.Close()) })
			test(t, c, echomqtest.Queue(t), name == "server")
		})
	}
}

// engineMs is the engine's clock, Unix ms.
func engineMs(t *testing.T, c *Client) int64 {
	t.Helper()
	now, err := c.EngineTime(context.Background())
	require.NoError(t, err)
	return now.UnixMilli()
}

// putTop appends the EVT entry of e (receipt field first) as it is.
func putTop(t *testing.T, c *Client, key string, e EntryID) {
	t.Helper()
	snow, ok := e.Snowflake()
	require.True(t, ok, "%v", e)
	require.NoError(t, c.conn.XAdd(context.Background(), key, e.String(), MustID(BrandEvent, snow).String(), []string{"k", "top"}))
}

// engineCells are a queue's engine id cells: near the clock and ahead of it.
type engineCells struct{ near, ahead uint64 }

// engineNext models the scripts' choice of an id above top when the engine's
// clock reads nowMs, in region ('n' near the clock, 'a' following a top
// ahead of it): the next value of the region's cell, not earlier than nowMs
// nor at or below top, in the space of [engineNode] (sequences 0..2047
// near, 2048..4095 ahead).
func engineNext(top EntryID, cells *engineCells, nowMs int64, region byte) EntryID {
	const half = 2048
	engine := uint64(engineNode) << seqBits
	tseq := int64(-1)
	if tail := min(top.Seq, maxTail); tail >= engine {
		tseq = int64(tail - engine)
	}
	base := uint64(max(nowMs, int64(top.Ms))-epoch) * half
	tms := top.Ms - uint64(epoch)
	if region == 'n' {
		c := max(cells.near+1, base)
		switch {
		case tseq >= half:
			c = max(c, (tms+1)*half)
		case tseq >= 0:
			c = max(c, tms*half+uint64(tseq)+1)
		}
		cells.near = c
		return EntryID{Ms: c/half + uint64(epoch), Seq: engine | c%half}
	}
	c := max(cells.ahead+1, base)
	if tseq >= half {
		c = max(c, tms*half+uint64(tseq)-half+1)
	}
	cells.ahead = c
	return EntryID{Ms: c/half + uint64(epoch), Seq: engine | half | c%half}
}

// contendedWant is what a script must choose for n records above top, the
// queue's cells holding cells before the call: all in the region the first
// one takes (near unless top lies more than the scripts' lead ahead).
func contendedWant(top EntryID, cells engineCells, nowMs int64, n int) []string {
	region := byte('n')
	if int64(top.Ms) > nowMs+scriptLead.Milliseconds() {
		region = 'a'
	}
	want := make([]string, n)
	for i := range want {
		top = engineNext(top, &cells, nowMs, region)
		snow, _ := top.Snowflake()
		want[i] = MustID(BrandEvent, snow).String()
	}
	return want
}

// engineCell reads the queue's engine id cells (0 when absent).
func engineCell(t testing.TB, c *Client, q string) engineCells {
	t.Helper()
	get := func(field string) uint64 {
		v, err := c.do(context.Background(), "HGET", keyspace.EngineCellKey(q), field)
		require.NoError(t, err)
		if v == nil {
			return 0
		}
		n, err := strconv.ParseUint(v.(string), 10, 64)
		require.NoError(t, err)
		return n
	}
	return engineCells{near: get("n"), ahead: get("a")}
}

func contendedRecords(n int) [][]string {
	recs := make([][]string, n)
	for i := range recs {
		recs[i] = []string{"k", strconv.Itoa(i), "room", "lobby-7"}
	}
	return recs
}

// TestContendedScriptReceipts: the contended script's ids and receipts are
// exactly those of the engine's choice (engineNext) and the Go encoder,
// above tops of the writer's node and of nodes above and below it, of the
// engine's node, at sequence and node boundaries, behind and ahead of the
// clock, for one record and for batches; and the arbitrating script chooses
// by the same rule from the same cell.
func TestContendedScriptReceipts(t *testing.T) {
	t.Parallel()
	contendedEngines(t, func(t *testing.T, c *Client, q string, server bool) {
		const node = 5
		mk := func(ms int64, nd, seq int) EntryID { return EntryID{Ms: uint64(ms), Seq: uint64(nd<<seqBits | seq)} }
		// Tops near the clock (behind it, in its millisecond, up to the
		// script's 2 ms lead ahead) of every kind of tail: the writer's,
		// other nodes' and the engine's near and ahead regions, at their
		// boundaries. Each top is placed against a fresh reading of the
		// clock; the model takes the script's own TIME, so a slow machine
		// changes the expected ids, never the verdict.
		cases := []struct {
			name    string
			off     int64 // ms from the engine's clock
			nd, seq int
			n       int
		}{
			{"past", -50, 900, 7, 1},
			{"past node 0", -3, 0, 0, 3},
			{"own next seq", 2, node, 10, 1},
			{"own last seq", 2, node, maxSeq, 1},
			{"node above", 2, 900, 3, 2},
			{"node below", 1, 2, maxSeq, 2},
			{"last writer node", 2, engineNode - 1, maxSeq, 2},
			{"engine near", 2, engineNode, 17, 3},
			{"engine near last", 2, engineNode, 2047, 2},
			{"engine ahead region", 2, engineNode, 2048, 2},
			{"last tail", 2, engineNode, maxSeq, 2},
			{"now", 0, 900, 0, 2},
			{"batch", 1, 700, 1, 40},
		}
		for i, tc := range cases {
			key := c.Stream(q, "r"+strconv.Itoa(i)).Key()
			top := mk(engineMs(t, c)+tc.off, tc.nd, tc.seq)
			putTop(t, c, key, top)
			cell := engineCell(t, c, q)
			rep, err := c.conn.StreamAppendContended(context.Background(), key, keyspace.EngineCellKey(q), 5, c.cfg.MaxSkew.Milliseconds(), contendedRecords(tc.n))
			require.NoError(t, err, tc.name)
			if rep.Status == wire.AppendBack {
				// Only a slow round trip of engineMs can leave the top
				// more than 2 ms ahead of the script's clock.
				require.Equal(t, wire.BackAhead, rep.Why, tc.name)
				require.Greater(t, int64(top.Ms), rep.EngineUs/1000+2, tc.name)
				continue
			}
			require.Equal(t, wire.AppendOK, rep.Status, "%s: %+v", tc.name, rep)
			require.Equal(t, top.String(), rep.Top, tc.name)
			want := contendedWant(top, cell, rep.EngineUs/1000, tc.n)
			require.Equal(t, want, rep.Receipts, tc.name)
			// Written as the house shape: entry id of the receipt, id field first.
			entries, err := c.conn.XRange(context.Background(), key, "-", "+", 0, false)
			require.NoError(t, err)
			require.Len(t, entries, tc.n+1, tc.name)
			for j, e := range entries[1:] {
				id, err := ParseEventID(want[j])
				require.NoError(t, err)
				require.Equal(t, engineNode, id.snow.Node(), tc.name)
				require.Equal(t, id.EntryID().String(), e.ID, tc.name)
				require.Equal(t, []string{reservedField, want[j], "k", strconv.Itoa(j), "room", "lobby-7"}, e.Fields, tc.name)
			}
		}
		now := engineMs(t, c)

		// Above a top behind the clock the millisecond is TIME's: any
		// microsecond.
		key := c.Stream(q, "clock").Key()
		putTop(t, c, key, mk(now-1000, 900, 0))
		for range 40 {
			cell := engineCell(t, c, q)
			rep, err := c.conn.StreamAppendContended(context.Background(), key, keyspace.EngineCellKey(q), 5, c.cfg.MaxSkew.Milliseconds(), contendedRecords(1))
			require.NoError(t, err)
			id, err := ParseEventID(rep.Receipts[0])
			require.NoError(t, err)
			top, err := ParseEntryID(rep.Top)
			require.NoError(t, err)
			require.Equal(t, contendedWant(top, cell, rep.EngineUs/1000, 1)[0], rep.Receipts[0])
			last, err := c.conn.XRange(context.Background(), key, "-", "+", 1, true)
			require.NoError(t, err)
			require.Equal(t, id.EntryID().String(), last[0].ID, "engine µs %d", rep.EngineUs)
			time.Sleep(time.Duration(37+rep.EngineUs%50) * time.Millisecond / 10) // sleep: spread the appends over the engine's microseconds
		}

		// Tops ahead of the clock (within MaxSkew): the lean script hands
		// them back; the arbitrating script (mode h, a stale proposal)
		// follows them in the ahead region of the engine's sequences, so
		// the near cell, and with it every other stream, stays at the
		// clock. The clock is read again: on a loaded machine the cases
		// above can outlast a lead.
		ahead := engineMs(t, c) + 3000 // within MaxSkew (5 s)
		for i, top := range []EntryID{
			mk(ahead, node, 9), mk(ahead, 901, maxSeq), mk(ahead, 3, 0), mk(ahead, engineNode, 100),
			mk(ahead, engineNode, 2048), mk(ahead+1, engineNode, maxSeq-1), mk(ahead+2, engineNode, maxSeq),
		} {
			lean, full := c.Stream(q, "lean"+strconv.Itoa(i)).Key(), c.Stream(q, "full"+strconv.Itoa(i)).Key()
			putTop(t, c, lean, top)
			putTop(t, c, full, top)
			rep, err := c.conn.StreamAppendContended(context.Background(), lean, keyspace.EngineCellKey(q), 5, c.cfg.MaxSkew.Milliseconds(), contendedRecords(3))
			require.NoError(t, err)
			require.Equal(t, wire.AppendBack, rep.Status)
			require.Equal(t, wire.BackAhead, rep.Why)
			cell := engineCell(t, c, q)
			stale := MustID(BrandEvent, snowflakeAt(time.UnixMilli(epoch)))
			frep, err := c.conn.StreamAppend(context.Background(), &wire.AppendReq{
				Key: full, Cell: keyspace.EngineCellKey(q), Mode: wire.ModeContended, Node: node, MaxSkewMs: 5000, LeadMs: 2, WindowMs: 1,
				EntryIDs: []string{stale.EntryID().String(), stale.EntryID().String(), stale.EntryID().String()},
				Receipts: []string{stale.String(), stale.String(), stale.String()},
				Pairs:    contendedRecords(3),
			})
			require.NoError(t, err)
			require.Equal(t, wire.AppendOK, frep.Status)
			require.Equal(t, contendedWant(top, cell, frep.EngineUs/1000, 3), frep.Receipts, "top %v", top)
			after := engineCell(t, c, q)
			require.Equal(t, cell.near, after.near, "a top ahead must not move the near cell")
		}
		// The near cell stayed at the clock: a top behind it gets an id in
		// the clock's millisecond.
		key = c.Stream(q, "after-ahead").Key()
		putTop(t, c, key, mk(engineMs(t, c)-10, 900, 0))
		rep, err := c.conn.StreamAppendContended(context.Background(), key, keyspace.EngineCellKey(q), 5, c.cfg.MaxSkew.Milliseconds(), contendedRecords(1))
		require.NoError(t, err)
		require.Equal(t, wire.AppendOK, rep.Status)
		id, err := ParseEventID(rep.Receipts[0])
		require.NoError(t, err)
		require.LessOrEqual(t, id.snow.unixMilli(), rep.EngineUs/1000+1)
	})
}

// TestContendedScriptEdges: the contended script hands back, writing
// nothing, what it does not answer (an empty stream, a top beyond MaxSkew,
// a deleted last entry), and Append on a hot stream then answers it through
// the arbitrating script. A top whose receipt field is missing or wrong
// does not matter: the script computes receipts from entry ids only.
func TestContendedScriptEdges(t *testing.T) {
	t.Parallel()
	contendedEngines(t, func(t *testing.T, c *Client, q string, server bool) {
		bg := context.Background()
		skew := c.cfg.MaxSkew.Milliseconds()
		lean := func(key string) wire.ContendedReply {
			t.Helper()
			rep, err := c.conn.StreamAppendContended(bg, key, keyspace.EngineCellKey(q), 5, skew, contendedRecords(1))
			require.NoError(t, err)
			return rep
		}
		xlen := func(key string) int64 {
			t.Helper()
			n, err := c.do(bg, "XLEN", key)
			require.NoError(t, err)
			return n.(int64)
		}
		hot := func(s *Stream) *Stream { c.eclock.markHot(s.key); return s }

		// Empty: no key, and a stream whose entries were all deleted.
		s := hot(c.Stream(q, "empty"))
		rep := lean(s.key)
		require.Equal(t, wire.AppendBack, rep.Status)
		require.Equal(t, wire.BackEmpty, rep.Why)
		require.False(t, keyExists(t, c, s.key))
		id, err := s.Append(bg, F("k", "v"), nil)
		require.NoError(t, err)
		require.Equal(t, int64(1), xlen(s.key))
		_, err = c.do(bg, "XDEL", s.key, id.EntryID().String())
		require.NoError(t, err)
		rep = lean(s.key)
		require.Equal(t, wire.BackEmpty, rep.Why)
		require.Zero(t, xlen(s.key))
		next, err := hot(s).Append(bg, F("k", "w"), nil)
		require.NoError(t, err)
		require.Positive(t, next.Compare(id))

		// A top beyond MaxSkew: handed back, then refused by Append.
		s = hot(c.Stream(q, "skew"))
		far := EntryID{Ms: uint64(engineMs(t, c) + skew + 3000), Seq: 900 << seqBits}
		putTop(t, c, s.key, far)
		rep = lean(s.key)
		require.Equal(t, wire.BackSkew, rep.Why)
		require.Equal(t, int64(1), xlen(s.key))
		_, err = s.Append(bg, F("k", "v"), nil)
		var se *SkewError
		require.ErrorAs(t, err, &se)
		require.True(t, se.Top)
		require.Equal(t, int64(1), xlen(s.key))

		// A deleted last entry: XADD compares with the last generated id.
		// The deleted entry is the engine's, ahead region, 2 ms ahead: a
		// near id (at most 2 ms ahead) lies below it, unless the script
		// ran more than 2 ms after the clock was read (then it is simply
		// appended above it).
		s = hot(c.Stream(q, "tail"))
		at := engineMs(t, c)
		low := EntryID{Ms: uint64(at - 100), Seq: 2 << seqBits}
		high := EntryID{Ms: uint64(at + 2), Seq: engineNode<<seqBits | 4000}
		putTop(t, c, s.key, low)
		putTop(t, c, s.key, high)
		_, err = c.do(bg, "XDEL", s.key, high.String())
		require.NoError(t, err)
		if server { // the embedded engine's XADD compares with the last entry
			rep = lean(s.key)
			if rep.Status == wire.AppendBack {
				require.Equal(t, wire.BackTail, rep.Why)
				require.Equal(t, int64(1), xlen(s.key))
			} else {
				require.Greater(t, rep.EngineUs/1000, int64(high.Ms))
			}
		}
		id, err = hot(s).Append(bg, F("k", "v"), nil)
		require.NoError(t, err)
		if server {
			require.Positive(t, id.EntryID().Compare(high))
		}
		require.Positive(t, id.EntryID().Compare(low))

		// Tops without a valid receipt field: receipts come from entry ids.
		for i, fields := range [][]string{{"k", "v"}, {"id", "garbage"}, {"id", "EVT0000000000z"}} {
			s = hot(c.Stream(q, "bad"+strconv.Itoa(i)))
			top := EntryID{Ms: uint64(engineMs(t, c)), Seq: 700 << seqBits}
			_, err = c.do(bg, append([]string{"XADD", s.key, top.String()}, fields...)...)
			require.NoError(t, err)
			cell := engineCell(t, c, q)
			rep = lean(s.key)
			require.Equal(t, wire.AppendOK, rep.Status, "%+v", rep)
			require.Equal(t, contendedWant(top, cell, rep.EngineUs/1000, 1), rep.Receipts)
			id, err := hot(s).Append(bg, F("k", "w"), nil)
			require.NoError(t, err)
			last, err := c.conn.XRange(bg, s.key, "-", "+", 1, true)
			require.NoError(t, err)
			require.Equal(t, []string{reservedField, id.String(), "k", "w"}, last[0].Fields)
			require.Equal(t, id.EntryID().String(), last[0].ID)
		}

		// Records without payload fields, alone and in a batch.
		for i, recs := range [][][]string{{{}}, {{}, {"a", "b"}, {}}} {
			key := c.Stream(q, "nofields"+strconv.Itoa(i)).Key()
			top := EntryID{Ms: uint64(engineMs(t, c)), Seq: 700 << seqBits}
			putTop(t, c, key, top)
			cell := engineCell(t, c, q)
			rep, err := c.conn.StreamAppendContended(bg, key, keyspace.EngineCellKey(q), 5, skew, recs)
			require.NoError(t, err)
			require.Equal(t, contendedWant(top, cell, rep.EngineUs/1000, len(recs)), rep.Receipts)
			entries, err := c.conn.XRange(bg, key, "-", "+", 0, false)
			require.NoError(t, err)
			require.Len(t, entries, len(recs)+1)
			for j, e := range entries[1:] {
				require.Equal(t, append([]string{reservedField, rep.Receipts[j]}, recs[j]...), e.Fields)
			}
		}

		// Another type under the key: the engine's error, nothing else.
		s = hot(c.Stream(q, "wrongtype"))
		_, err = c.do(bg, "SET", s.key, "x")
		require.NoError(t, err)
		_, err = c.conn.StreamAppendContended(bg, s.key, keyspace.EngineCellKey(q), 5, skew, contendedRecords(1))
		require.ErrorIs(t, err, ErrWrongType)
		_, err = s.Append(bg, F("k", "v"), nil)
		require.ErrorIs(t, err, ErrWrongType)
	})
}

func keyExists(t *testing.T, c *Client, key string) bool {
	t.Helper()
	n, err := c.do(context.Background(), "EXISTS", key)
	require.NoError(t, err)
	return n.(int64) == 1
}

// receiptLua is the contended script's receipt function alone, run by EVAL
// on the engine for pairs (h, tail) given as arguments.
func receiptLua(t testing.TB) string {
	src := wire.StreamAppendContendedSource()
	i, j := strings.Index(src, "local function receipt"), strings.Index(src, "local out =")
	require.True(t, i > 0 && j > i)
	return "local M, char = 3521614606208, string.char\n" + src[i:j] +
		"local out = {}\nfor k = 1, #ARGV, 2 do out[#out + 1] = receipt(tonumber(ARGV[k]), tonumber(ARGV[k + 1])) end\nreturn out\n"
}

// receiptCheck runs the script's receipt arithmetic on the engine for the
// snowflakes and compares with the Go encoder.
func receiptCheck(t testing.TB, c *Client, lua string, snows []Snowflake) {
	t.Helper()
	args := []string{"EVAL", lua, "0"}
	for _, s := range snows {
		args = append(args, strconv.FormatInt(s.millis(), 10), strconv.FormatInt(s.tail(), 10))
	}
	got, err := c.do(context.Background(), args...)
	require.NoError(t, err)
	out := got.([]any)
	require.Len(t, out, len(snows))
	for i, s := range snows {
		require.Equal(t, MustID(BrandEvent, s).String(), out[i], "snowflake %d (ms %d, tail %d)", s, s.millis(), s.tail())
	}
}

// TestContendedReceiptArithmetic: the script's receipts equal the Go
// encoder's across the whole 63-bit range, at every carry of the low seven
// base62 digits into the high four and around the places where Lua's %
// could round its quotient up.
func TestContendedReceiptArithmetic(t *testing.T) {
	t.Parallel()
	c, err := Connect(context.Background(), &Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	lua := receiptLua(t)
	const m7 = 3521614606208 // 62^7
	var snows []Snowflake
	add := func(v int64) {
		if v >= 0 && v <= int64(^uint64(0)>>1) {
			snows = append(snows, Snowflake(v))
		}
	}
	for _, v := range []int64{0, 1, 61, 62, maxTail, maxTail + 1, 1<<63 - 1, 1<<63 - 2, (time.Now().UnixMilli() - epoch) << tailBits} {
		add(v)
	}
	// Every multiple of 62^k near the bottom, the middle and the top.
	p := int64(1)
	for k := 1; k <= 10; k++ {
		p *= 62
		for _, mul := range []int64{1, 2, 61, 1 << 20, (1<<63 - 1) / p} {
			for d := int64(-2); d <= 2; d++ {
				add(mul*p + d)
			}
		}
	}
	// Carries of the low part: hi*62^7 + lo at lo = 62^7-1 and 0.
	for _, hi := range []int64{1, 2, 1000, 14776335, 2619000, 2619001, 2619002} {
		for d := int64(-3); d <= 3; d++ {
			add(hi*m7 + d)
		}
	}
	// Pseudo-random snowflakes.
	x := uint64(0x9E3779B97F4A7C15)
	for range 2000 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		add(int64(x >> 1))
	}
	for i := 0; i < len(snows); i += 500 {
		receiptCheck(t, c, lua, snows[i:min(i+500, len(snows))])
	}
}

// FuzzContendedScript compares the script's receipt arithmetic, run by the
// engine, with the Go encoder for any snowflake.
func FuzzContendedScript(f *testing.F) {
	for _, v := range []int64{0, 1, maxTail, 1<<63 - 1, 3521614606208*2619001 - 1, 3521614606208 * 2619001, 7567340032229376} {
		f.Add(v)
	}
	c, err := Connect(context.Background(), &Config{URL: echomqtest.Shared(f).URL(), Notice: io.Discard})
	require.NoError(f, err)
	f.Cleanup(func() { require.NoError(f, c.Close()) })
	lua := receiptLua(f)
	f.Fuzz(func(t *testing.T, v int64) {
		if v < 0 {
			v = -(v + 1)
		}
		receiptCheck(t, c, lua, []Snowflake{Snowflake(v)})
	})
}

// do is rawcmd.Do for the tests inside the package (which cannot import
// rawcmd: it imports this package).
func (c *Client) do(ctx context.Context, args ...string) (any, error) {
	if len(args) >= 2 {
		return c.conn.RawKeyed(ctx, args[0], args[1], args[2:]...)
	}
	return c.conn.Raw(ctx, args...)
}
