package archive_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// benchEntries is the stream length of the benchmarks: 100k, or
// EMQ_BENCH_ENTRIES (e.g. 1000000).
func benchEntries(b *testing.B) int {
	if v := os.Getenv("EMQ_BENCH_ENTRIES"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(b, err)
		return n
	}
	return 100_000
}

// fillBench appends n game-like events in pipelined batches.
func fillBench(b *testing.B, s *echomq.Stream, n int) {
	b.Helper()
	const batch = 1000
	recs := make([]echomq.Fields, 0, batch)
	for i := range n {
		recs = append(recs, echomq.F("game", fmt.Sprintf("GAM%011d", i/50), "player", fmt.Sprintf("PLR%011d", i%997),
			"emoji", "🦊🐙", "points", strconv.Itoa(i%1000)))
		if len(recs) == batch || i == n-1 {
			_, err := s.AppendBatch(context.Background(), recs, nil)
			require.NoError(b, err)
			recs = recs[:0]
		}
	}
}

// BenchmarkArchive folds a whole stream into a local archive and trims it.
// Baseline in the same run: reading the same entries from the engine
// (XRANGE pages), which every archive cycle must do anyway. Reported: the
// archive throughput, the engine's MEMORY USAGE of the stream before the
// cycle against the archive's bytes, and the time ratio to the baseline.
func BenchmarkArchive(b *testing.B) {
	n := benchEntries(b)
	ctx := context.Background()
	c := newClient(b)
	q := echomqtest.Queue(b)
	var engineBytes, archiveBytes int64
	var archiveNs, readNs time.Duration
	for b.Loop() {
		b.StopTimer()
		name := "bench-" + strconv.Itoa(int(archiveNs))
		s := c.Stream(q, name)
		fillBench(b, s, n)
		info, err := s.Info(ctx)
		require.NoError(b, err)
		engineBytes = info.MemoryBytes
		start := time.Now()
		read := 0
		for _, err := range s.Scan(ctx, echomq.All, nil) {
			require.NoError(b, err)
			read++
		}
		readNs += time.Since(start)
		require.Equal(b, n, read)
		a := newArchiver(b, c, newStore(b, "fs"), nil)
		b.StartTimer()
		start = time.Now()
		res, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: name, Keep: keep(0)})
		archiveNs += time.Since(start)
		require.NoError(b, err)
		require.Equal(b, int64(n), res.Folded)
		archiveBytes = 0
		for _, seg := range res.Segments {
			archiveBytes += seg.Bytes
		}
		b.StopTimer()
		_, _ = rawcmd.Do(ctx, c, "DEL", s.Key(), s.Key()+":archived")
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/archiveNs.Seconds(), "entries/s")
	b.ReportMetric(float64(engineBytes), "engine-bytes")
	b.ReportMetric(float64(archiveBytes), "archive-bytes")
	b.ReportMetric(float64(engineBytes)/float64(archiveBytes), "engine/archive")
	b.ReportMetric(float64(archiveNs)/float64(readNs), "archive/xrange-time")
}

// BenchmarkMergedRead reads a window that is 90% archived through the
// merged reader, against the baseline of reading the same entries from a
// stream that holds them all live, in the same run.
func BenchmarkMergedRead(b *testing.B) {
	n := benchEntries(b)
	ctx := context.Background()
	c := newClient(b)
	q := echomqtest.Queue(b)
	archived, live := c.Stream(q, "archived"), c.Stream(q, "live")
	fillBench(b, archived, n)
	fillBench(b, live, n)
	a := newArchiver(b, c, newStore(b, "fs"), nil)
	_, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: "archived", Keep: keep(int64(n / 10))})
	require.NoError(b, err)
	rd := a.Reader(q, "archived")
	var mergedNs, liveNs time.Duration
	for b.Loop() {
		start := time.Now()
		got := 0
		for _, err := range rd.Scan(ctx, echomq.All, nil) {
			require.NoError(b, err)
			got++
		}
		mergedNs += time.Since(start)
		require.Equal(b, n, got)
		b.StopTimer()
		start = time.Now()
		got = 0
		for _, err := range live.Scan(ctx, echomq.All, nil) {
			require.NoError(b, err)
			got++
		}
		liveNs += time.Since(start)
		require.Equal(b, n, got)
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/mergedNs.Seconds(), "merged-entries/s")
	b.ReportMetric(float64(n)*float64(b.N)/liveNs.Seconds(), "live-entries/s")
	b.ReportMetric(float64(liveNs)/float64(mergedNs), "merged-speedup")
}
