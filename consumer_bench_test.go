//go:build unix

package echomq_test

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// consumerBenchRuns names the streams of each run of BenchmarkConsumer.
var consumerBenchRuns atomic.Int64

// BenchmarkConsumer measures the consumer engine end to end on a private
// redis-server: one op is one entry, stored beforehand, fetched, handed to
// a no-op handler and acknowledged — by a Consumer with four handlers, and
// by a SetConsumer over two streams (merged order, one handler). The
// timer runs from the start until the handler has seen the last entry.
// B/op, allocs/op and cpu-ns/op (the CPU time of this process, its
// client side, per entry) hold steady on a loaded machine; entries/s and
// ns/op do not.
func BenchmarkConsumer(b *testing.B) {
	e := newBenchEnv(b)
	quiet := slog.New(slog.DiscardHandler)
	prefill := func(b *testing.B, stream string, n int) {
		b.Helper()
		s := e.emq.Stream(e.q, stream)
		batch := make([]echomq.Fields, 0, 1000)
		for left := n; left > 0; left -= len(batch) {
			batch = batch[:0]
			for range min(left, cap(batch)) {
				batch = append(batch, benchPayload)
			}
			_, err := s.AppendBatch(ctx, batch, nil)
			require.NoError(b, err)
		}
	}
	// run times svc from its start until handle has counted n entries.
	run := func(b *testing.B, svc interface {
		Start(context.Context) error
		Stop(context.Context) error
	}, done <-chan struct{},
	) {
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := cpuTime(b)
		require.NoError(b, svc.Start(ctx))
		select {
		case <-done:
		case <-time.After(5 * time.Minute):
			b.Fatal("the consumer did not handle every entry")
		}
		b.StopTimer()
		cpu := cpuTime(b) - cpu0
		require.NoError(b, svc.Stop(ctx))
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	counter := func(n int) (echomq.HandlerFunc, <-chan struct{}) {
		var seen atomic.Int64
		done := make(chan struct{})
		return func(context.Context, echomq.Delivery) error {
			if seen.Add(1) == int64(n) {
				close(done)
			}
			return nil
		}, done
	}

	b.Run("consumer", func(b *testing.B) {
		stream := "c" + strconv.FormatInt(consumerBenchRuns.Add(1), 10)
		prefill(b, stream, b.N)
		handle, done := counter(b.N)
		c, err := e.emq.Consumer(&echomq.ConsumerConfig{
			Queue: e.q, Stream: stream, Group: "g", Start: echomq.StartHead,
			Concurrency: 4, Handle: handle, Logger: quiet,
		})
		require.NoError(b, err)
		run(b, c, done)
	})
	b.Run("set", func(b *testing.B) {
		run1 := strconv.FormatInt(consumerBenchRuns.Add(1), 10)
		a, z := "sa"+run1, "sz"+run1
		prefill(b, a, (b.N+1)/2)
		prefill(b, z, b.N/2)
		handle, done := counter(b.N)
		c, err := e.emq.SetConsumer(&echomq.SetConsumerConfig{
			Set: e.emq.Streams(e.q, a, z), Group: "g", Start: echomq.StartHead,
			Settle: 10 * time.Millisecond, Handle: handle, Logger: quiet,
		})
		require.NoError(b, err)
		run(b, c, done)
	})
}

// cpuTime returns the CPU time (user and system) this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
