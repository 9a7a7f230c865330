package hookbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// Sizes of the comparisons.
const (
	Writers      = 64   // goroutines of append/parallel64
	ConsumeRound = 5000 // entries per side per round of consume
	consumeBatch = 100
)

var payload = echomq.F("room", "lobby-7", "player", "PLR0KHTOWnGLuC", "points", "120")

// Wrap wraps the "on" consumer's handler (a tracer's handler span); nil
// leaves it as it is.
type Wrap func(echomq.HandlerFunc) echomq.HandlerFunc

// Compare runs, as sub-benchmarks of b, Append from one goroutine
// ("append/serial"), from 64 ("append/parallel64"), and a consumer's
// end-to-end throughput ("consume": entries appended in batches to a fresh
// stream while a consumer handles and acknowledges them) through a client
// with hooks and one without. Each reports on_ops/s, off_ops/s and
// x_vs_off: the throughput with hooks divided by the throughput without.
func Compare(b *testing.B, hooks []echomq.Hook, wrap Wrap) {
	b.Helper()
	url := echomqtest.Start(b).URL()
	connect := func(node int, hs []echomq.Hook) *echomq.Client {
		c, err := echomq.Connect(context.Background(), &echomq.Config{URL: url, NodeID: new(node), Hooks: hs, Notice: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = c.Close() })
		return c
	}
	on, off := connect(1, hooks), connect(2, nil)
	q := echomqtest.Queue(b)
	appendOp := func(c *echomq.Client, name string) func() error {
		s := c.Stream(q, name)
		return func() error { _, err := s.Append(context.Background(), payload, nil); return err }
	}
	b.Run("append/serial", func(b *testing.B) {
		pairs(b, 1, appendOp(on, "serial-on"), appendOp(off, "serial-off"))
	})
	b.Run("append/parallel64", func(b *testing.B) {
		pairs(b, Writers, appendOp(on, "parallel-on"), appendOp(off, "parallel-off"))
	})
	b.Run("consume", func(b *testing.B) { consume(b, on, off, q, wrap) })
}

// pairs runs b.N pairs of operations, one of each side, spread over
// writers goroutines; each goroutine alternates the sides and flips their
// order every pair, timing each operation.
func pairs(b *testing.B, writers int, onOp, offOp func() error) {
	b.Helper()
	var onNs, offNs atomic.Int64
	var once sync.Once
	var first error
	fail := func(err error) { once.Do(func() { first = err }) }
	n := b.N
	b.ResetTimer()
	var wg sync.WaitGroup
	for g := range writers {
		share := n / writers
		if g < n%writers {
			share++
		}
		wg.Go(func() {
			for i := range share {
				sides := [2]func() error{onOp, offOp}
				sums := [2]*atomic.Int64{&onNs, &offNs}
				if (i+g)%2 == 1 {
					sides[0], sides[1], sums[0], sums[1] = sides[1], sides[0], sums[1], sums[0]
				}
				for k := range 2 {
					start := time.Now()
					if err := sides[k](); err != nil {
						fail(err)
						return
					}
					sums[k].Add(int64(time.Since(start)))
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if first != nil {
		b.Fatal(first)
	}
	report(b, float64(n), time.Duration(onNs.Load())/time.Duration(writers), time.Duration(offNs.Load())/time.Duration(writers))
}

// consume runs rounds in which both sides, side by side, append
// ConsumeRound entries to fresh streams and consume them; each side's time
// runs from the round's start until its consumer handled the last entry.
func consume(b *testing.B, on, off *echomq.Client, q string, wrap Wrap) {
	b.Helper()
	var onT, offT time.Duration
	rounds := 0
	for b.Loop() {
		rounds++
		var wg sync.WaitGroup
		var errOn, errOff error
		var dOn, dOff time.Duration
		wg.Go(func() { dOn, errOn = endToEnd(on, q, fmt.Sprintf("on-%d", rounds), wrap) })
		wg.Go(func() { dOff, errOff = endToEnd(off, q, fmt.Sprintf("off-%d", rounds), nil) })
		wg.Wait()
		onT, offT = onT+dOn, offT+dOff
		if err := errors.Join(errOn, errOff); err != nil {
			b.Fatal(err)
		}
	}
	report(b, float64(rounds*ConsumeRound), onT, offT)
}

// report sets the ops/s of each side and their ratio.
func report(b *testing.B, ops float64, onT, offT time.Duration) {
	b.ReportMetric(ops/onT.Seconds(), "on_ops/s")
	b.ReportMetric(ops/offT.Seconds(), "off_ops/s")
	b.ReportMetric(offT.Seconds()/onT.Seconds(), "x_vs_off")
}

// endToEnd appends ConsumeRound entries in batches to a fresh stream while
// a consumer of the same client handles them, and returns the time until
// the last was handled; the consumer then stops (flushing the last
// acknowledgements) and every entry must have been acknowledged.
func endToEnd(c *echomq.Client, q, name string, wrap Wrap) (time.Duration, error) {
	ctx := context.Background()
	s := c.Stream(q, "consume-"+name)
	var handled atomic.Int64
	done := make(chan struct{})
	handle := echomq.HandlerFunc(func(context.Context, echomq.Delivery) error {
		if handled.Add(1) == ConsumeRound {
			close(done)
		}
		return nil
	})
	if wrap != nil {
		handle = wrap(handle)
	}
	cons, err := c.Consumer(&echomq.ConsumerConfig{
		Queue: q, Stream: s.Name(), Group: "g", Start: echomq.StartHead,
		Beat: 100 * time.Millisecond, Concurrency: 4, Logger: slog.New(slog.DiscardHandler), Handle: handle,
	})
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cons.Start(ctx); err != nil {
		return 0, err
	}
	batch := make([]echomq.Fields, consumeBatch)
	for i := range batch {
		batch[i] = payload
	}
	for left := ConsumeRound; left > 0; left -= consumeBatch {
		if _, err := s.AppendBatch(ctx, batch[:min(left, consumeBatch)], nil); err != nil {
			return 0, errors.Join(err, cons.Stop(ctx))
		}
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		return 0, errors.Join(errors.New("hookbench: consumer did not finish"), cons.Stop(ctx))
	}
	// The clock stops when the last entry was handled: the stop that
	// follows waits out a blocked read, a fixed cost that says nothing of
	// either side.
	d := time.Since(start)
	if err := cons.Stop(ctx); err != nil {
		return 0, err
	}
	if st := cons.Stats(); st.Acked != ConsumeRound {
		return 0, fmt.Errorf("hookbench: %d of %d acknowledged", st.Acked, ConsumeRound)
	}
	_, err = rawcmd.Do(ctx, c, "DEL", s.Key())
	return d, err
}
