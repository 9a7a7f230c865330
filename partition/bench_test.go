package partition_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
)

var benchPayload = echomq.F("room", "R42", "player", "PLR7", "points", "480")

// benchStreams returns a plain stream and a partitioned stream of one
// partition, in queues of their own on the shared server.
func benchStreams(b *testing.B) (*echomq.Client, *echomq.Stream, *partition.Stream) {
	b.Helper()
	c := connect(b, echomqtest.Shared(b).URL())
	q := echomqtest.Queue(b)
	ps, err := partition.Create(ctx, c, q, "p1", 1)
	require.NoError(b, err)
	return c, c.Stream(q, "plain"), ps
}

// BenchmarkAppendP1 compares appends to a partitioned stream of one
// partition (keyed, so routed) with appends to a plain stream, serially and
// from 16 goroutines, round by round; x_vs_p1 is the partitioned append's
// cost relative to the plain one (target at most 1.05).
func BenchmarkAppendP1(b *testing.B) {
	for _, writers := range []int{1, 16} {
		b.Run("writers="+itoa(writers), func(b *testing.B) {
			_, plain, ps := benchStreams(b)
			echomqtest.CompareRounds(b, 512, "appends/s",
				echomqtest.Side{Name: "plain", Run: func(n int) error {
					return echomqtest.FanOut(writers, n, func() error { _, err := plain.Append(ctx, benchPayload, nil); return err })
				}},
				echomqtest.Side{Name: "p1", Run: func(n int) error {
					return echomqtest.FanOut(writers, n, func() error { _, err := ps.Append(ctx, "PLR7", benchPayload, nil); return err })
				}},
			)
		})
	}
}

// counter counts handled deliveries and wakes a waiter at a target.
type counter struct {
	n      atomic.Int64
	mu     sync.Mutex
	target int64
	reach  chan struct{}
}

func (c *counter) handle(context.Context, echomq.Delivery) error {
	v := c.n.Add(1)
	c.mu.Lock()
	if c.reach != nil && v >= c.target {
		close(c.reach)
		c.reach = nil
	}
	c.mu.Unlock()
	return nil
}

// await returns a channel closed once n more deliveries were handled.
func (c *counter) await(n int) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	c.target, c.reach = c.n.Load()+int64(n), ch
	if c.n.Load() >= c.target {
		close(ch)
		c.reach = nil
	}
	return ch
}

// BenchmarkDeliverP1 compares deliveries through a group member of a
// partitioned stream of one partition with deliveries through a plain
// consumer of a plain stream: each round appends a batch to each side
// (one call) and waits until its handler saw every event; both run all
// along. x_vs_p1 is the member's cost relative to the plain consumer
// (target at most 1.05).
func BenchmarkDeliverP1(b *testing.B) {
	c, plain, ps := benchStreams(b)
	pc, mc, recs := deliverPair(b, c, plain, ps)
	run := func(cnt *counter, appendBatch func() error) func(int) error {
		return func(n int) error {
			for range n / batch {
				done := cnt.await(batch)
				if err := appendBatch(); err != nil {
					return err
				}
				echomqtest.Recv(b, done, time.Minute, "a batch handled")
			}
			return nil
		}
	}
	echomqtest.CompareRounds(b, 4*batch, "deliveries/s",
		echomqtest.Side{Name: "plain", Run: run(pc, func() error { _, err := plain.AppendBatch(ctx, recs, nil); return err })},
		echomqtest.Side{Name: "p1", Run: run(mc, func() error { _, err := ps.AppendBatch(ctx, "PLR7", recs, nil); return err })},
	)
}

// batch is the size of the delivery benchmarks' append batches.
const batch = 1000

// deliverPair runs a plain consumer of plain and a group member of ps, both
// counting what they handle, until the benchmark ends, and returns their
// counters and a batch of records to append.
func deliverPair(b *testing.B, c *echomq.Client, plain *echomq.Stream, ps *partition.Stream) (pc, mc *counter, recs []echomq.Fields) {
	b.Helper()
	pc, mc = &counter{}, &counter{}
	ccfg := echomq.ConsumerConfig{Queue: plain.Queue(), Stream: plain.Name(), Group: "g", Name: "c", Start: echomq.StartHead, Handle: pc.handle, Logger: quiet}
	cons, err := c.Consumer(&ccfg)
	require.NoError(b, err)
	m, err := ps.Member(&partition.MemberConfig{Group: "g", Name: "c", Start: echomq.StartHead, Handle: mc.handle, Logger: quiet})
	require.NoError(b, err)
	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = cons.Run(rctx) })
	wg.Go(func() { _ = m.Run(rctx) })
	b.Cleanup(func() { stop(); wg.Wait() })
	echomqtest.WaitFor(b, time.Minute, "the member to hold its partition", func() bool { return len(m.Assignment().Held) == 1 })
	recs = make([]echomq.Fields, batch)
	for i := range recs {
		recs[i] = benchPayload
	}
	return pc, mc, recs
}

func itoa(n int) string {
	return strconv.Itoa(n)
}

// BenchmarkRoute is the client-side cost routing adds to an append.
func BenchmarkRoute(b *testing.B) {
	for b.Loop() {
		_ = partition.Route("PLR7", 16)
	}
}
