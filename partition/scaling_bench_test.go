package partition_test

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/rawcmd"
)

// The benchmarks of this file give docs/scaling.md its per-core figures.
// Each runs on engines of its own (echomqtest.Start, StartCluster), so the
// engine's CPU time (INFO cpu, user + sys) over a round is the round's
// alone: "per engine-core-second" is operations ÷ engine CPU seconds,
// which holds on any machine where the engine is the bottleneck, unlike
// operations per wall second, which on a small machine is bounded by the
// client sharing the cores.

// engineCPU returns the engine's CPU seconds so far (user + sys, main
// thread and children).
func engineCPU(tb testing.TB, s *echomqtest.Server) float64 {
	tb.Helper()
	info, err := s.Info("cpu")
	require.NoError(tb, err)
	var sum float64
	for _, k := range []string{"used_cpu_user", "used_cpu_sys"} {
		v, err := strconv.ParseFloat(info[k], 64)
		require.NoError(tb, err, k)
		sum += v
	}
	return sum
}

// costed is a CompareRounds side that also adds up the engine CPU its
// rounds took on srvs.
type costed struct {
	name string
	srvs []*echomqtest.Server
	run  func(n int) error
	ops  int
	cpu  float64
}

func (c *costed) side(tb testing.TB) echomqtest.Side {
	return echomqtest.Side{Name: c.name, Run: func(n int) error {
		before := 0.0
		for _, s := range c.srvs {
			before += engineCPU(tb, s)
		}
		err := c.run(n)
		for _, s := range c.srvs {
			c.cpu += engineCPU(tb, s)
		}
		c.cpu -= before
		c.ops += n
		return err
	}}
}

func (c *costed) report(b *testing.B, unit string) {
	if c.cpu > 0 {
		b.ReportMetric(float64(c.ops)/c.cpu, c.name+"_"+unit+"/engine-core-s")
	}
}

// benchmarkTool is valkey-benchmark or redis-benchmark, "" when neither
// is installed.
func benchmarkTool() string {
	for _, t := range []string{"redis-benchmark", "valkey-benchmark"} {
		if p, err := exec.LookPath(t); err == nil {
			return p
		}
	}
	return ""
}

// BenchmarkScaleAppend: appends of a three-field event from 64 goroutines
// to one engine of its own, round by round: the engine's own tool
// (redis-benchmark XADD, 64 connections, 16 commands in flight on each, as
// the EchoMQ client's automatic pipelining batches them: the engine's cost
// of a bare XADD), a raw XADD through the EchoMQ client (rawcmd), a
// plain Stream append and a keyed append to a partitioned stream of one
// partition. Each side reports appends/s and appends per engine
// core-second; x_vs_<side> is that side's time ÷ redis-benchmark's.
func BenchmarkScaleAppend(b *testing.B) {
	srv := echomqtest.Start(b)
	c := connect(b, srv.URL())
	q := echomqtest.Queue(b)
	plain := c.Stream(q, "plain")
	ps, err := partition.Create(ctx, c, q, "orders", 1)
	require.NoError(b, err)
	rawKey := c.Stream(q, "raw").Key()
	const writers = 64
	var sides []*costed
	if tool := benchmarkTool(); tool != "" {
		benchKey := c.Stream(q, "tool").Key()
		sides = append(sides, &costed{name: "redisbench", run: func(n int) error {
			out, err := exec.Command(tool, "-h", "127.0.0.1", "-p", strconv.Itoa(srv.Port()), "-c", strconv.Itoa(writers), "-P", "16", "-n", strconv.Itoa(n), "-q",
				"XADD", benchKey, "*", "room", "R42", "player", "PLR7", "points", "480").CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s: %w: %s", tool, err, out)
			}
			return nil
		}})
	}
	sides = append(sides,
		&costed{name: "rawxadd", run: func(n int) error {
			return echomqtest.FanOut(writers, n, func() error {
				_, err := rawcmd.Do(ctx, c, "XADD", rawKey, "*", "room", "R42", "player", "PLR7", "points", "480")
				return err
			})
		}},
		&costed{name: "append", run: func(n int) error {
			return echomqtest.FanOut(writers, n, func() error { _, err := plain.Append(ctx, benchPayload, nil); return err })
		}},
		&costed{name: "p1", run: func(n int) error {
			return echomqtest.FanOut(writers, n, func() error { _, err := ps.Append(ctx, "PLR7", benchPayload, nil); return err })
		}},
	)
	ss := make([]echomqtest.Side, len(sides))
	for i, s := range sides {
		s.srvs = []*echomqtest.Server{srv}
		ss[i] = s.side(b)
	}
	echomqtest.CompareRounds(b, 20000, "appends/s", ss...)
	for _, s := range sides {
		s.report(b, "appends")
	}
}

// BenchmarkScaleDeliver: per round, 5 000 events appended in batches of
// 1 000 and handled by a running consumer: "batch" appends to a stream no
// one consumes (the appends' own cost), "consumer" to a stream a plain
// Consumer handles, "member" to a partitioned stream of one partition a
// group Member handles. Deliveries per engine core-second are 5 000 ÷
// (a delivering side's engine CPU − batch's), computed in docs/scaling.md
// from the reported per-side figures.
func BenchmarkScaleDeliver(b *testing.B) {
	srv := echomqtest.Start(b)
	c := connect(b, srv.URL())
	q := echomqtest.Queue(b)
	idle, plain := c.Stream(q, "idle"), c.Stream(q, "plain")
	ps, err := partition.Create(ctx, c, q, "orders", 1)
	require.NoError(b, err)
	pc, mc, recs := deliverPair(b, c, plain, ps)
	run := func(cnt *counter, appendBatch func() error) func(int) error {
		return func(n int) error {
			var done <-chan struct{}
			if cnt != nil {
				done = cnt.await(n)
			}
			for range n / batch {
				if err := appendBatch(); err != nil {
					return err
				}
			}
			if done != nil {
				echomqtest.Recv(b, done, time.Minute, "the round handled")
			}
			return nil
		}
	}
	sides := []*costed{
		{name: "batch", run: run(nil, func() error { _, err := idle.AppendBatch(ctx, recs, nil); return err })},
		{name: "consumer", run: run(pc, func() error { _, err := plain.AppendBatch(ctx, recs, nil); return err })},
		{name: "member", run: run(mc, func() error { _, err := ps.AppendBatch(ctx, "PLR7", recs, nil); return err })},
	}
	ss := make([]echomqtest.Side, len(sides))
	for i, s := range sides {
		s.srvs = []*echomqtest.Server{srv}
		ss[i] = s.side(b)
	}
	echomqtest.CompareRounds(b, 5*batch, "events/s", ss...)
	for _, s := range sides {
		s.report(b, "events")
	}
	for _, s := range sides[1:] {
		if d := s.cpu - sides[0].cpu*float64(s.ops)/float64(sides[0].ops); d > 0 {
			b.ReportMetric(float64(s.ops)/d, s.name+"_deliveries/engine-core-s")
		}
	}
}

// BenchmarkStreamMemory appends 100 000 three-field events (about 30
// bytes of names and values) (batches of
// 1 000) to one stream on an engine of its own and reports the stream's
// MEMORY USAGE and the growth of the engine's used_memory per event, and
// per million events extrapolated linearly (a stream is a radix tree of
// listpacks of at most stream-node-max-entries (100) entries: its size
// grows in steps of one node, so a linear extrapolation from 100 000
// events holds to a fraction of a node per million). Run it with
// -benchtime 1x.
func BenchmarkStreamMemory(b *testing.B) {
	srv := echomqtest.Start(b)
	c := connect(b, srv.URL())
	q := echomqtest.Queue(b)
	const events, batch = 100_000, 1000
	recs := make([]echomq.Fields, batch)
	for i := range recs { // the same field names, values that vary as a game's do
		recs[i] = echomq.F("room", "R"+strconv.Itoa(i%50), "player", "PLR"+strconv.Itoa(1000+i), "points", strconv.Itoa(i*7%1000))
	}
	usedMemory := func() float64 {
		info, err := srv.Info("memory")
		require.NoError(b, err)
		v, err := strconv.ParseFloat(info["used_memory"], 64)
		require.NoError(b, err)
		return v
	}
	var usage, used float64
	runs := 0
	for b.Loop() {
		s := c.Stream(q, "m"+strconv.Itoa(runs))
		before := usedMemory()
		for range events / batch {
			_, err := s.AppendBatch(ctx, recs, nil)
			require.NoError(b, err)
		}
		info, err := s.Info(ctx)
		require.NoError(b, err)
		require.Equal(b, int64(events), info.Length)
		usage += float64(info.MemoryBytes)
		used += usedMemory() - before
		runs++
	}
	b.ReportMetric(usage/float64(runs)/events, "usage_bytes/event")
	b.ReportMetric(used/float64(runs)/events, "used_memory_bytes/event")
	b.ReportMetric(usage/float64(runs)/events, "MB/million-events") // bytes/event = MB per million
}

// BenchmarkScaleCluster: keyed appends (1 000 keys) from 64 goroutines to
// a partitioned stream of P = 1, 2, 4 and 8 partitions on a cluster of 3
// masters of its own. Reported: appends/s, appends per engine core-second
// (the three masters' CPU together) and the busiest master's share of
// that CPU: with P = 1 one master does all the work; with P ≥ 3 it spreads.
// On a machine with fewer cores than masters + client, appends/s cannot
// grow with P (the client and the engines share the cores); the
// busiest-master share is what shows the headroom a bigger machine uses.
func BenchmarkScaleCluster(b *testing.B) {
	cl := echomqtest.StartCluster(b)
	c := connect(b, cl.URL())
	masters := cl.Nodes()
	const writers, keys = 64, 1000
	for _, p := range []int{1, 2, 4, 8} {
		b.Run("P="+strconv.Itoa(p), func(b *testing.B) {
			s, err := partition.Create(ctx, c, echomqtest.Queue(b), "orders", p)
			require.NoError(b, err)
			before := make([]float64, len(masters))
			for i, m := range masters {
				before[i] = engineCPU(b, m)
			}
			var n int64
			var mu sync.Mutex
			start := time.Now()
			for b.Loop() {
				err := echomqtest.FanOutEach(writers, 20000, func(g int) error {
					mu.Lock()
					n++
					k := n
					mu.Unlock()
					_, err := s.Append(ctx, "k"+strconv.FormatInt(k%keys, 10), benchPayload, nil)
					return err
				})
				require.NoError(b, err)
			}
			wall := time.Since(start)
			var total, top float64
			var shares []string
			for i, m := range masters {
				d := engineCPU(b, m) - before[i]
				total += d
				top = max(top, d)
				shares = append(shares, strconv.FormatFloat(d, 'f', 2, 64))
			}
			b.ReportMetric(float64(n)/wall.Seconds(), "appends/s")
			b.ReportMetric(float64(n)/total, "appends/engine-core-s")
			b.ReportMetric(top/total, "busiest_master_cpu_share")
			b.Logf("P=%d: %d appends in %v; engine CPU s per master: %s", p, n, wall.Round(time.Millisecond), strings.Join(shares, " / "))
		})
	}
}
