// Package hookbench measures what hooks cost: the same workloads through a
// client with hooks and one without, on one private engine, in alternating
// rounds of one run (see echomqtest.CompareRounds). The metrics and tracing
// modules run it on their hooks; BENCHMARKS.md records the ratios.
package hookbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// Rounds of the comparisons: operations per contender per round.
const (
	SerialRound   = 256  // serial appends
	ParallelRound = 2048 // appends from Writers goroutines
	ConsumeRound  = 2000 // entries appended and consumed end to end
	Writers       = 64
	consumeBatch  = 100
)

var payload = echomq.F("room", "lobby-7", "player", "PLR0KHTOWnGLuC", "points", "120")

// Compare runs, as sub-benchmarks of b, Append from one goroutine
// ("append/serial"), from 64 ("append/parallel64"), and a consumer's
// end-to-end throughput ("consume": AppendBatch of 2000 entries into a
// fresh stream while a consumer handles and acknowledges them) with hooks
// ("on") and without ("off"). Each reports on_ops/s, off_ops/s and
// x_vs_off: the throughput with hooks divided by the throughput without.
// wrap, when not nil, wraps the "on" consumer's handler (a tracer's
// handler span).
func Compare(b *testing.B, hooks []echomq.Hook, wrap func(echomq.HandlerFunc) echomq.HandlerFunc) {
	b.Helper()
	url := echomqtest.Start(b).URL()
	connect := func(node int, hs []echomq.Hook) *echomq.Client {
		c, err := echomq.Connect(context.Background(), echomq.Config{URL: url, NodeID: echomq.Node(node), Hooks: hs, Notice: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = c.Close() })
		return c
	}
	on, off := connect(1, hooks), connect(2, nil)
	q := echomqtest.Queue(b)
	appendSide := func(name string, c *echomq.Client, run func(n int, op func() error) error) echomqtest.Side {
		s := c.Stream(q, "append-"+name)
		op := func() error { _, err := s.Append(context.Background(), payload); return err }
		return echomqtest.Side{Name: name, Reset: func() error { _, err := c.Do(context.Background(), "DEL", s.Key()); return err },
			Run: func(n int) error { return run(n, op) }}
	}
	serial := func(n int, op func() error) error { return echomqtest.Repeat(n, op) }
	parallel := func(n int, op func() error) error { return echomqtest.FanOut(Writers, n, op) }
	b.Run("append/serial", func(b *testing.B) {
		echomqtest.CompareRounds(b, SerialRound, "ops/s", appendSide("on", on, serial), appendSide("off", off, serial))
	})
	b.Run("append/parallel64", func(b *testing.B) {
		echomqtest.CompareRounds(b, ParallelRound, "ops/s", appendSide("on", on, parallel), appendSide("off", off, parallel))
	})
	b.Run("consume", func(b *testing.B) {
		echomqtest.CompareRounds(b, ConsumeRound, "ops/s", consumeSide("on", on, q, wrap), consumeSide("off", off, q, nil))
	})
}

// consumeSide appends n entries to a fresh stream in batches while a
// consumer of the same client handles them, and stops once every one was
// handled (the stop flushes the last acknowledgements).
func consumeSide(name string, c *echomq.Client, q string, wrap func(echomq.HandlerFunc) echomq.HandlerFunc) echomqtest.Side {
	var round atomic.Int64
	quiet := slog.New(slog.DiscardHandler)
	return echomqtest.Side{Name: name, Run: func(n int) error {
		ctx := context.Background()
		s := c.Stream(q, fmt.Sprintf("consume-%s-%d", name, round.Add(1)))
		var handled atomic.Int64
		done := make(chan struct{})
		handle := echomq.HandlerFunc(func(context.Context, echomq.Delivery) error {
			if handled.Add(1) == int64(n) {
				close(done)
			}
			return nil
		})
		if wrap != nil {
			handle = wrap(handle)
		}
		cons, err := c.Consumer(echomq.ConsumerConfig{Queue: q, Stream: s.Name(), Group: "g", Start: echomq.StartHead,
			Beat: 100 * time.Millisecond, Concurrency: 4, Logger: quiet, Handle: handle})
		if err != nil {
			return err
		}
		if err := cons.Start(ctx); err != nil {
			return err
		}
		batch := make([]echomq.Fields, consumeBatch)
		for i := range batch {
			batch[i] = payload
		}
		for left := n; left > 0; left -= consumeBatch {
			if _, err := s.AppendBatch(ctx, batch[:min(left, consumeBatch)]); err != nil {
				return errors.Join(err, cons.Stop(ctx))
			}
		}
		select {
		case <-done:
		case <-time.After(time.Minute):
			return errors.Join(errors.New("hookbench: consumer did not finish"), cons.Stop(ctx))
		}
		if err := cons.Stop(ctx); err != nil {
			return err
		}
		if st := cons.Stats(); st.Acked != int64(n) {
			return fmt.Errorf("hookbench: %d of %d acknowledged", st.Acked, n)
		}
		_, err = c.Do(ctx, "DEL", s.Key())
		return err
	}}
}
