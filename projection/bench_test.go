package projection

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// benchEntries is the size of the engine-side benchmarks' stream: 100k by
// default, EMQ_BENCH_ENTRIES=1000000 for the full-size run.
func benchEntries(b *testing.B) int {
	if s := os.Getenv("EMQ_BENCH_ENTRIES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("EMQ_BENCH_ENTRIES=%q: want a positive number", s)
		}
		return n
	}
	return 100_000
}

// populate appends n small events to a fresh stream on the shared server.
func populate(b *testing.B, name string, n int) (*echomq.Client, *echomq.Stream) {
	b.Helper()
	client := connect(b, echomqtest.Shared(b).URL(), 1)
	s := client.Stream(echomqtest.Queue(b), name)
	appendBatches(b, s, n)
	return client, s
}

func appendBatches(b *testing.B, s *echomq.Stream, n int) {
	b.Helper()
	for n > 0 {
		k := min(n, 5000)
		batch := make([]echomq.Fields, k)
		for i := range batch {
			batch[i] = echomq.F("room", "r"+strconv.Itoa(i%16), "points", strconv.Itoa(i%600))
		}
		if _, err := s.AppendBatch(b.Context(), batch, nil); err != nil {
			b.Fatal(err)
		}
		n -= k
	}
}

// BenchmarkFoldInMemory folds a count over events already in memory and
// compares it with a bare loop over the same slice (the baseline).
func BenchmarkFoldInMemory(b *testing.B) {
	const n = 1 << 16
	evs := make([]Event, n)
	for i := range evs {
		evs[i] = Event{Event: echomq.Event{Entry: echomq.EntryID{Ms: uint64(i)}, Fields: echomq.F("room", "r")}, Stream: "s"}
	}
	p := Count()
	b.ReportAllocs()
	for b.Loop() {
		c, err := FoldSeq(p, Events(evs))
		if err != nil || c.Total != n {
			b.Fatal(c, err)
		}
	}
	foldRate := float64(n*b.N) / b.Elapsed().Seconds()

	var total int64
	start := time.Now()
	for range b.N {
		for i := range evs {
			if evs[i].Stream != "" {
				total++
			}
		}
	}
	baseRate := float64(n*b.N) / time.Since(start).Seconds()
	if total != int64(n*b.N) {
		b.Fatal(total)
	}
	b.ReportMetric(foldRate, "events/s")
	b.ReportMetric(foldRate/baseRate, "fold/loop")
}

// BenchmarkFoldVsScan runs a one-shot count fold over a whole stream and,
// in the same iteration, the foundation's paging Scan over the same range
// (the baseline); fold/scan is the ratio of their throughputs.
func BenchmarkFoldVsScan(b *testing.B) {
	n := benchEntries(b)
	_, s := populate(b, "fold", n)
	ctx := b.Context()
	scan := func() {
		seen := 0
		for _, err := range s.Scan(ctx, echomq.All, nil) {
			if err != nil {
				b.Fatal(err)
			}
			seen++
		}
		if seen != n {
			b.Fatal(seen)
		}
	}
	fold := func() {
		c, err := Fold(ctx, All, Count(), s)
		if err != nil || c.Total != int64(n) {
			b.Fatal(c, err)
		}
	}
	// Alternate which runs first, so that neither always reads a warmer
	// server or a fresher heap.
	var scanTime, foldTime time.Duration
	for i := 0; b.Loop(); i++ {
		for j := range 2 {
			start := time.Now()
			if (i+j)%2 == 0 {
				scan()
				scanTime += time.Since(start)
			} else {
				fold()
				foldTime += time.Since(start)
			}
		}
	}
	scanRate := float64(n*b.N) / scanTime.Seconds()
	foldRate := float64(n*b.N) / foldTime.Seconds()
	b.ReportMetric(scanRate, "scan-events/s")
	b.ReportMetric(foldRate, "fold-events/s")
	b.ReportMetric(foldRate/scanRate, "fold/scan")
}

// BenchmarkCatchUp appends 1000 events to a large stream and catches a live
// projection up (timed), and refolds the whole stream (timed, the
// baseline), in each iteration.
func BenchmarkCatchUp(b *testing.B) {
	n := benchEntries(b)
	_, s := populate(b, "catchup", n)
	ctx := b.Context()
	l, err := NewLive(CountBy("room"), nil, s)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := l.CatchUp(ctx); err != nil {
		b.Fatal(err)
	}
	var catchUp, refold time.Duration
	for b.Loop() {
		appendBatches(b, s, 1000)
		start := time.Now()
		k, err := l.CatchUp(ctx)
		catchUp += time.Since(start)
		if err != nil || k != 1000 {
			b.Fatal(k, err)
		}
		start = time.Now()
		if _, err := Fold(ctx, All, CountBy("room"), s); err != nil {
			b.Fatal(err)
		}
		refold += time.Since(start)
	}
	b.ReportMetric(catchUp.Seconds()*1000/float64(b.N), "catchup-ms")
	b.ReportMetric(refold.Seconds()*1000/float64(b.N), "refold-ms")
	b.ReportMetric(float64(refold)/float64(catchUp), "refold/catchup")
}
