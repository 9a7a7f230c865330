package echomqtest

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Side is one contender of a same-run ratio benchmark: Run performs n
// operations; Reset, when set, runs untimed before each of its rounds.
type Side struct {
	Name  string
	Reset func() error
	Run   func(n int) error
}

// CompareRounds runs the sides in alternating rounds of perRound operations
// each (rotating who goes first, so a noisy neighbour or a warming engine
// hurts every side alike) until the benchmark time is used, then reports
// each side's rate (<name>_<unit>) and how many times faster the first side
// is than each other side (x_vs_<name>); ns/op becomes the first side's
// time per operation. It returns how many operations each side ran.
func CompareRounds(b *testing.B, perRound int, unit string, sides ...Side) int {
	b.Helper()
	spent := make([]time.Duration, len(sides))
	rounds := 0
	for b.Loop() {
		for k := range sides {
			i := (rounds + k) % len(sides)
			if s := sides[i]; s.Reset != nil {
				if err := s.Reset(); err != nil {
					b.Fatalf("%s: reset: %v", s.Name, err)
				}
			}
			start := time.Now()
			err := sides[i].Run(perRound)
			spent[i] += time.Since(start)
			if err != nil {
				b.Fatalf("%s: %v", sides[i].Name, err)
			}
		}
		rounds++
	}
	ops := float64(rounds * perRound)
	for i, s := range sides {
		b.ReportMetric(ops/spent[i].Seconds(), s.Name+"_"+unit)
	}
	for i, s := range sides[1:] {
		b.ReportMetric(spent[i+1].Seconds()/spent[0].Seconds(), "x_vs_"+s.Name)
	}
	b.ReportMetric(float64(spent[0].Nanoseconds())/ops, "ns/op")
	return rounds * perRound
}

// FanOut runs n calls of op spread over writers goroutines and returns the
// first error.
func FanOut(writers, n int, op func() error) error {
	return FanOutEach(writers, n, func(int) error { return op() })
}

// FanOutEach is [FanOut] telling op which goroutine (0..writers-1) calls it,
// for sides where each goroutine is a writer of its own.
func FanOutEach(writers, n int, op func(g int) error) error {
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for g := range writers {
		share := n / writers
		if g < n%writers {
			share++
		}
		wg.Go(func() {
			for range share {
				if err := op(g); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// Repeat runs op n times on this goroutine and returns the first error.
func Repeat(n int, op func() error) error {
	for range n {
		if err := op(); err != nil {
			return err
		}
	}
	return nil
}

// RunParallel measures op alone from at least writers goroutines, reporting
// ops/s; reset runs untimed first.
func RunParallel(b *testing.B, writers int, reset func() error, op func() error) {
	b.Helper()
	b.ReportAllocs()
	if err := reset(); err != nil {
		b.Fatal(err)
	}
	b.SetParallelism((writers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	var (
		once  sync.Once
		first error
	)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				once.Do(func() { first = err })
				return
			}
		}
	})
	b.StopTimer()
	if first != nil {
		b.Fatal(first)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// RunSerial measures op alone on one goroutine, reporting ops/s; reset runs
// untimed first.
func RunSerial(b *testing.B, reset func() error, op func() error) {
	b.Helper()
	b.ReportAllocs()
	if err := reset(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
