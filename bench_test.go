package echomq_test

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valkey-io/valkey-go"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// Every engine benchmark compares EchoMQ with a raw client on the same
// private redis-server, in the same run. The ratio sub-benchmarks alternate
// the contenders round by round (rotating who goes first), so that a noisy
// neighbour or a warming engine hurts every side alike; their x_vs_* metrics
// are the numbers BENCHMARKS.md holds against the targets. The ours/valkey
// sub-benchmarks measure each side alone, for ns/op and allocations.

const (
	benchWriters  = 64   // goroutines of the parallel append comparison
	benchBatch    = 64   // records per AppendBatch
	benchPage     = 1000 // entries per read page
	benchPages    = 32   // pages prefilled for the read comparison
	appendRound   = 2048 // appends per contender per ratio round
	batchRound    = 16   // batches per contender per ratio round
	readRound     = 4    // pages per contender per ratio round
	mintTargetIDs = 20e6 // ids per second one goroutine must mint
)

// benchPayload is the payload of every append, ours and the baselines'.
var benchPayload = echomq.F("room", "lobby-7", "player", "PLR0KHTOWnGLuC", "points", "120")

// benchEnv is one private redis-server and the clients compared on it
// (the comparisons with other client libraries live in module bench).
type benchEnv struct {
	emq *echomq.Client
	vk  valkey.Client // configured like EchoMQ's own valkey-go client
	q   string
	url string
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	url := echomqtest.Start(b).URL()
	emq, err := echomq.Connect(ctx, &echomq.Config{URL: url, NodeID: new(1), Notice: io.Discard, CallTimeout: benchCallTimeout})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, emq.Close()) })
	opt, err := valkey.ParseURL(url)
	require.NoError(b, err)
	opt.DisableCache = true
	vk, err := valkey.NewClient(opt)
	require.NoError(b, err)
	b.Cleanup(vk.Close)
	return &benchEnv{emq: emq, vk: vk, q: echomqtest.Queue(b), url: url}
}

func (e *benchEnv) del(key string) error {
	return e.vk.Do(ctx, e.vk.B().Del().Key(key).Build()).Error()
}

// xadd is the raw baseline of Append: XADD key * <payload>.
func (e *benchEnv) xadd(key string) valkey.Completed {
	return e.vk.B().Xadd().Key(key).Id("*").FieldValue().
		FieldValue(benchPayload[0], benchPayload[1]).
		FieldValue(benchPayload[2], benchPayload[3]).
		FieldValue(benchPayload[4], benchPayload[5]).Build()
}

func (e *benchEnv) xaddValkey(key string) error { return e.vk.Do(ctx, e.xadd(key)).Error() }

// retries returns how many Appends minted again (one XINFO STREAM each) and
// how many XADDs the engine refused as not above the top, since the last
// CONFIG RESETSTAT. Only Append issues XINFO STREAM here.
func (e *benchEnv) retries() (xinfo, refused int64, err error) {
	info, err := e.vk.Do(ctx, e.vk.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		return 0, 0, err
	}
	stat := func(cmd, field string) int64 {
		_, line, ok := strings.Cut(info, "cmdstat_"+cmd+":")
		if !ok {
			return 0
		}
		line, _, _ = strings.Cut(line, "\n")
		for kv := range strings.SplitSeq(strings.TrimSpace(line), ",") {
			if k, v, _ := strings.Cut(kv, "="); k == field {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		return 0
	}
	return stat("xinfo|stream", "calls"), stat("xadd", "failed_calls"), nil
}

func (e *benchEnv) resetStats() error {
	return e.vk.Do(ctx, e.vk.B().ConfigResetstat().Build()).Error()
}

// side is one contender of a ratio benchmark (see echomqtest.Side).
type side struct {
	name  string
	reset func() error
	run   func(n int) error
}

// compareRounds is echomqtest.CompareRounds over the sides.
func compareRounds(b *testing.B, perRound int, unit string, sides ...side) int {
	b.Helper()
	es := make([]echomqtest.Side, len(sides))
	for i, s := range sides {
		es[i] = echomqtest.Side{Name: s.name, Reset: s.reset, Run: s.run}
	}
	return echomqtest.CompareRounds(b, perRound, unit, es...)
}

func fanOut(n int, op func() error) error { return echomqtest.FanOut(benchWriters, n, op) }

func repeat(n int, op func() error) error { return echomqtest.Repeat(n, op) }

func runParallel(b *testing.B, reset, op func() error) {
	b.Helper()
	echomqtest.RunParallel(b, benchWriters, reset, op)
}

func runSerial(b *testing.B, reset, op func() error) {
	b.Helper()
	echomqtest.RunSerial(b, reset, op)
}

// reportRetries reports, per Append, how many minted again (retries) and
// how many XADDs the engine refused as not above the stream top.
func reportRetries(b *testing.B, e *benchEnv, prefix string, appends int) {
	xinfo, refused, err := e.retries()
	require.NoError(b, err)
	b.ReportMetric(float64(xinfo)/float64(appends), prefix+"retries/op")
	b.ReportMetric(float64(refused)/float64(appends), prefix+"refused/op")
}

// BenchmarkAppend compares Append from 64 goroutines with raw valkey-go
// XADD * of the same payload (target: ≥ 1.3×; module bench holds the
// comparison with go-redis), and measures one goroutine's Append for its
// allocations. The side valkey_flushdelay is raw valkey-go given the same
// MaxFlushDelay as EchoMQ's connection (Config.FlushDelay), to show what of
// the difference is that setting.
func BenchmarkAppend(b *testing.B) {
	e := newBenchEnv(b)
	s := e.emq.Stream(e.q, "append")
	vkKey := s.Key() + ".valkey"
	ours := func() error { _, err := s.Append(ctx, benchPayload, nil); return err }
	valkeyOp := func() error { return e.xaddValkey(vkKey) }
	delOurs := func() error { return e.del(s.Key()) }
	delValkey := func() error { return e.del(vkKey) }
	opt, err := valkey.ParseURL(e.url)
	require.NoError(b, err)
	opt.DisableCache, opt.MaxFlushDelay = true, 20*time.Microsecond
	delayed, err := valkey.NewClient(opt)
	require.NoError(b, err)
	b.Cleanup(delayed.Close)
	delayedKey := s.Key() + ".delayed"
	delayedOp := func() error { return delayed.Do(ctx, e.xadd(delayedKey)).Error() }
	delDelayed := func() error { return e.del(delayedKey) }

	b.Run("parallel64/ours", func(b *testing.B) {
		require.NoError(b, e.resetStats())
		runParallel(b, delOurs, ours)
		reportRetries(b, e, "", b.N)
	})
	b.Run("parallel64/valkey", func(b *testing.B) { runParallel(b, delValkey, valkeyOp) })
	b.Run("parallel64/ratio", func(b *testing.B) {
		require.NoError(b, e.resetStats())
		appends := compareRounds(b, appendRound, "ops/s",
			side{"ours", delOurs, func(n int) error { return fanOut(n, ours) }},
			side{"valkey", delValkey, func(n int) error { return fanOut(n, valkeyOp) }},
			side{"valkey_flushdelay", delDelayed, func(n int) error { return fanOut(n, delayedOp) }})
		reportRetries(b, e, "ours_", appends)
	})
	b.Run("serial/ours", func(b *testing.B) { runSerial(b, delOurs, ours) })
	b.Run("serial/valkey", func(b *testing.B) { runSerial(b, delValkey, valkeyOp) })
	b.Run("serial/ratio", func(b *testing.B) {
		compareRounds(b, appendRound/16, "ops/s",
			side{"ours", delOurs, func(n int) error { return repeat(n, ours) }},
			side{"valkey", delValkey, func(n int) error { return repeat(n, valkeyOp) }},
			side{"valkey_flushdelay", delDelayed, func(n int) error { return repeat(n, delayedOp) }})
	})
}

// BenchmarkAppendBatch compares AppendBatch of 64 records with a raw
// valkey-go DoMulti pipeline of 64 XADD * (target: ≥ 0.9×), and with one of
// 64 XADDs carrying the same bytes as AppendBatch's (x_vs_samebytes).
func BenchmarkAppendBatch(b *testing.B) {
	e := newBenchEnv(b)
	s := e.emq.Stream(e.q, "batch")
	vkKey := s.Key() + ".valkey"
	records := make([]echomq.Fields, benchBatch)
	for i := range records {
		records[i] = benchPayload
	}
	ours := func() error { _, err := s.AppendBatch(ctx, records, nil); return err }
	pipeline := func() error {
		cmds := make(valkey.Commands, benchBatch)
		for i := range cmds {
			cmds[i] = e.xadd(vkKey)
		}
		for _, r := range e.vk.DoMulti(ctx, cmds...) {
			if err := r.Error(); err != nil {
				return err
			}
		}
		return nil
	}
	// sameKey receives what AppendBatch writes, sent by raw valkey-go: an
	// explicit entry id and the "id" receipt field ahead of the payload. It
	// tells the library's own cost apart from the cost of that entry shape.
	sameKey := s.Key() + ".samebytes"
	minter, err := echomq.NewMinter(2, nil)
	require.NoError(b, err)
	sameBytes := func() error {
		cmds := make(valkey.Commands, benchBatch)
		for i := range cmds {
			id := minter.NextID(echomq.BrandEvent)
			cmds[i] = e.vk.B().Arbitrary("XADD").Keys(sameKey).
				Args(id.EntryID().String(), echomq.ReservedField, id.String()).Args(benchPayload...).Build()
		}
		for _, r := range e.vk.DoMulti(ctx, cmds...) {
			if err := r.Error(); err != nil {
				return err
			}
		}
		return nil
	}
	delOurs := func() error { return e.del(s.Key()) }
	delValkey := func() error { return e.del(vkKey) }
	delSame := func() error { return e.del(sameKey) }

	b.Run("ours", func(b *testing.B) { runSerial(b, delOurs, ours) })
	b.Run("valkey", func(b *testing.B) { runSerial(b, delValkey, pipeline) })
	b.Run("ratio", func(b *testing.B) {
		compareRounds(b, batchRound, "batches/s",
			side{"ours", delOurs, func(n int) error { return repeat(n, ours) }},
			side{"valkey", delValkey, func(n int) error { return repeat(n, pipeline) }},
			side{"samebytes", delSame, func(n int) error { return repeat(n, sameBytes) }})
	})
}

// rawEntry is the baseline's decoding of one XRANGE entry: its id and its
// field/value pairs in order.
type rawEntry struct {
	ID     string
	Fields []string
}

// xrangeValkey is the raw baseline of Read: XRANGE key start + COUNT n,
// decoded into rawEntries.
func (e *benchEnv) xrangeValkey(key, start string, n int64) ([]rawEntry, error) {
	arr, err := e.vk.Do(ctx, e.vk.B().Xrange().Key(key).Start(start).End("+").Count(n).Build()).ToArray()
	if err != nil {
		return nil, err
	}
	out := make([]rawEntry, len(arr))
	for i := range arr {
		pair, err := arr[i].ToArray()
		if err != nil || len(pair) != 2 {
			return nil, errors.New("bad entry")
		}
		if out[i].ID, err = pair[0].ToString(); err != nil {
			return nil, err
		}
		if out[i].Fields, err = pair[1].AsStrSlice(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// BenchmarkRead compares Read of 1 000-entry pages with raw valkey-go
// XRANGE … COUNT 1000 decoded into ids and ordered pairs (target: ≥ 0.9×).
// Both sides cycle over the same page starts of one prefilled stream.
func BenchmarkRead(b *testing.B) {
	e := newBenchEnv(b)
	s := e.emq.Stream(e.q, "read")
	records := make([]echomq.Fields, benchPage)
	for i := range records {
		records[i] = echomq.F("room", "lobby-7", "player", "PLR0KHTOWnGLuC", "points", strconv.Itoa(i))
	}
	starts := make([]echomq.EntryID, benchPages)
	for p := range starts {
		ids, err := s.AppendBatch(ctx, records, nil)
		require.NoError(b, err)
		starts[p] = ids[0].EntryID()
	}
	var oursPage, rawPage int
	ours := func() error {
		from := echomq.Inclusive(starts[oursPage%benchPages])
		oursPage++
		evs, err := s.Read(ctx, echomq.Span(from, echomq.Unbounded), &echomq.ReadOpts{Count: benchPage})
		if err == nil && len(evs) != benchPage {
			err = errors.New("short page")
		}
		return err
	}
	raw := func() error {
		entries, err := e.xrangeValkey(s.Key(), starts[rawPage%benchPages].String(), benchPage)
		rawPage++
		if err == nil && len(entries) != benchPage {
			err = errors.New("short page")
		}
		return err
	}
	none := func() error { return nil }

	b.Run("ours", func(b *testing.B) { runSerial(b, none, ours) })
	b.Run("valkey", func(b *testing.B) { runSerial(b, none, raw) })
	b.Run("ratio", func(b *testing.B) {
		compareRounds(b, readRound, "pages/s",
			side{"ours", nil, func(n int) error { return repeat(n, ours) }},
			side{"valkey", nil, func(n int) error { return repeat(n, raw) }})
	})
}

// Sinks keep the compiler from discarding the measured work.
var (
	sinkSnow  echomq.Snowflake
	sinkStr   string
	sinkID    echomq.ID
	sinkInt   int64
	sinkError error
)

// loop turns one cheap operation into a ratio side's run.
func loop(op func()) func(int) error {
	return func(n int) error {
		for range n {
			op()
		}
		return nil
	}
}

// BenchmarkMint measures minting on one goroutine (target: ≥ 20 M ids/s,
// reported as x_vs_target) against its floor, one read of the system clock
// (x_vs_clock), and the id codecs, each against the strconv work a decimal
// id would need instead.
func BenchmarkMint(b *testing.B) {
	m, err := echomq.NewMinter(1, nil)
	require.NoError(b, err)
	b.Run("Next", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkSnow = m.Next()
		}
		rate := float64(b.N) / b.Elapsed().Seconds()
		b.ReportMetric(rate, "ids/s")
		b.ReportMetric(rate/mintTargetIDs, "x_vs_target")
	})
	// A fixed clock isolates the minter's own work (one CAS; bursts carry the
	// sequence into the timestamp) from the clock read, its floor.
	fixed := time.Now()
	mf, err := echomq.NewMinter(1, func() time.Time { return fixed })
	require.NoError(b, err)
	b.Run("Next_fixedclock", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkSnow = mf.Next()
		}
		rate := float64(b.N) / b.Elapsed().Seconds()
		b.ReportMetric(rate, "ids/s")
		b.ReportMetric(rate/mintTargetIDs, "x_vs_target")
	})
	b.Run("Next/ratio", func(b *testing.B) {
		compareRounds(b, 4096, "ids/s",
			side{"ours", nil, loop(func() { sinkSnow = m.Next() })},
			side{"clock", nil, loop(func() { sinkInt = time.Now().UnixMilli() })})
	})
	b.Run("NextID_String", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = m.NextID(echomq.BrandEvent).String()
		}
	})

	id := m.NextID(echomq.BrandEvent)
	text, decimal := id.String(), strconv.FormatInt(int64(id.Snowflake()), 10)
	parse := func() { sinkID, sinkError = echomq.ParseID(text) }
	parseInt := func() { sinkInt, sinkError = strconv.ParseInt(decimal, 10, 64) }
	entry := id.EntryID()
	format := func() { sinkStr = entry.String() }
	formatUint := func() {
		sinkStr = strconv.FormatUint(entry.Ms, 10) + "-" + strconv.FormatUint(entry.Seq, 10)
	}
	for _, c := range []struct {
		name     string
		ours     func()
		baseline string
		base     func()
	}{
		{"ParseID", parse, "strconv", parseInt},
		{"EntryID_String", format, "strconv", formatUint},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.ours()
			}
		})
		b.Run(c.name+"/ratio", func(b *testing.B) {
			compareRounds(b, 4096, "ops/s", side{"ours", nil, loop(c.ours)}, side{c.baseline, nil, loop(c.base)})
		})
	}
}

var benchCallTimeout = func() time.Duration {
	if os.Getenv("EMQ_BENCH_NOBOUND") != "" {
		return -1
	}
	return 0
}()
