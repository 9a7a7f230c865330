package bench_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill-redisstream/pkg/redisstream"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// The consumer-group benchmarks compare three consumers of one group on the
// same private redis-server, in the same run, round by round: ours (a
// Consumer with a no-op handler and its defaults: Count 100, one handler,
// batched acks), a hand-written valkey-go loop (XREADGROUP COUNT 100 BLOCK,
// then one XACK of the batch), and Watermill's Redis Streams subscriber
// (go-redis; one entry per XREADGROUP, one XACK per message). Every round
// uses a fresh stream, so no contender inherits another's backlog; the
// consumer is started before the round's clock and stopped after it.

const (
	groupRound      = 20000 // entries per contender per throughput round
	groupBatch      = 100   // entries per producer AppendBatch
	latencyRate     = 2000  // appends per second of the latency benchmark
	latencyPerRound = 1000  // entries per latency round
)

// groupContender is one consumer under test: start begins consuming a
// fresh stream and returns a stop, which fails when the consumer does not
// stop within a minute; handled counts entries handed over.
type groupContender struct {
	name    string
	start   func(stream string) (stop func() error, err error)
	handled atomic.Int64
	target  int64
	reached chan struct{}
	// onHandle, when set, runs for each entry (latency probes).
	onHandle func(fields []string)
}

func (g *groupContender) handle(fields []string) {
	if g.onHandle != nil {
		g.onHandle(fields)
	}
	if g.handled.Add(1) == g.target {
		close(g.reached)
	}
}

// groupBench is the env plus the three contenders.
type groupBench struct {
	*benchEnv
	round int
}

func (e *groupBench) key(stream string) string { return e.emq.Stream(e.q, stream).Key() }

// ours runs an echomq Consumer.
func (e *groupBench) ours(g *groupContender) func(string) (func() error, error) {
	return func(stream string) (func() error, error) {
		c, err := e.emq.Consumer(&echomq.ConsumerConfig{
			Queue: e.q, Stream: stream, Group: "g", Name: "c", Start: echomq.StartHead, Logger: discardLog,
			Beat:   100 * time.Millisecond, // a quick stop between rounds; reads return as soon as entries exist
			Handle: func(_ context.Context, d echomq.Delivery) error { g.handle(d.Fields); return nil },
		})
		if err != nil {
			return nil, err
		}
		if _, err := e.emq.Group(e.q, stream, "g").Create(ctx, echomq.StartHead); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		return func() error {
			cancel()
			select {
			case <-done:
				return nil
			case <-time.After(time.Minute):
				return errors.New("ours: the consumer did not stop within a minute")
			}
		}, nil
	}
}

// raw runs the hand-written valkey-go loop.
func (e *groupBench) raw(g *groupContender) func(string) (func() error, error) {
	return func(stream string) (func() error, error) {
		key := e.key(stream)
		if err := e.vk.Do(ctx, e.vk.B().XgroupCreate().Key(key).Group("g").Id("0").Mkstream().Build()).Error(); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() {
			for ctx.Err() == nil {
				cmd := e.vk.B().Xreadgroup().Group("g", "c").Count(100).Block(1000).Streams().Key(key).Id(">").Build()
				res, err := e.vk.Do(ctx, cmd).AsXRead()
				if err != nil {
					continue // a timed-out block, or the stop
				}
				ids := make([]string, 0, 100)
				for _, entry := range res[key] {
					fields := make([]string, 0, 2*len(entry.FieldValues))
					for k, v := range entry.FieldValues {
						fields = append(fields, k, v)
					}
					g.handle(fields)
					ids = append(ids, entry.ID)
				}
				if len(ids) > 0 {
					_ = e.vk.Do(ctx, e.vk.B().Xack().Key(key).Group("g").Id(ids...).Build()).Error()
				}
			}
		})
		return func() error { cancel(); wg.Wait(); return nil }, nil
	}
}

// watermillIDs reads the message uuid from our entries' id field.
type watermillIDs struct{}

func (watermillIDs) Unmarshal(values map[string]any) (*message.Message, error) {
	id, _ := values["id"].(string)
	msg := message.NewMessage(id, nil)
	for k, v := range values {
		s, _ := v.(string)
		msg.Metadata.Set(k, s)
	}
	return msg, nil
}

// watermill runs watermill-redisstream's subscriber.
func (e *groupBench) watermill(g *groupContender) func(string) (func() error, error) {
	return func(stream string) (func() error, error) {
		// The subscriber closes its client on Close: give it its own.
		sub, err := redisstream.NewSubscriber(redisstream.SubscriberConfig{
			Client: redis.NewClient(&redis.Options{Addr: e.addr}), Unmarshaller: watermillIDs{}, Consumer: "c", ConsumerGroup: "g", OldestId: "0",
		}, watermill.NopLogger{})
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		msgs, err := sub.Subscribe(ctx, e.key(stream))
		if err != nil {
			cancel()
			return nil, err
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			for msg := range msgs {
				fields := make([]string, 0, 2*len(msg.Metadata))
				for k, v := range msg.Metadata {
					fields = append(fields, k, v)
				}
				g.handle(fields)
				msg.Ack()
			}
		})
		return func() error { cancel(); _ = sub.Close(); wg.Wait(); return nil }, nil
	}
}

// produce appends n entries in pipelined batches; fields, when set, makes
// each record's payload.
func (e *groupBench) produce(stream string, n int) error {
	s := e.emq.Stream(e.q, stream)
	recs := make([]echomq.Fields, 0, groupBatch)
	for done := 0; done < n; done += len(recs) {
		recs = recs[:0]
		for range min(groupBatch, n-done) {
			recs = append(recs, benchPayload)
		}
		if _, err := s.AppendBatch(ctx, recs, nil); err != nil {
			return err
		}
	}
	return nil
}

// settled waits until the group of stream has nothing pending.
func (e *groupBench) settled(stream string) error {
	for {
		n, err := e.vk.Do(ctx, e.vk.B().Xpending().Key(e.key(stream)).Group("g").Build()).ToArray()
		if err != nil {
			return err
		}
		if c, _ := n[0].AsInt64(); c == 0 {
			return nil
		}
		time.Sleep(200 * time.Microsecond) // sleep: a benchmark's drain poll, fine-grained not to show in its timings
	}
}

// side turns a contender into a compareRounds side: reset stops the last
// round's consumer and starts one on a fresh stream (untimed); run appends
// n entries (prefill: before the clock) and waits until all are handled and
// acknowledged.
func (e *groupBench) side(b *testing.B, g *groupContender, prefill bool) side {
	var stop func() error
	var stream string
	b.Cleanup(func() {
		if stop != nil {
			require.NoError(b, stop())
		}
	})
	return side{
		Name: g.name,
		Reset: func() error {
			if stop != nil {
				if err := stop(); err != nil {
					return err
				}
			}
			e.round++
			stream = g.name + strconv.Itoa(e.round)
			g.handled.Store(0)
			g.reached = make(chan struct{})
			var err error
			if prefill {
				if err = e.produce(stream, int(g.target)); err != nil {
					return err
				}
			}
			stop, err = g.start(stream)
			return err
		},
		Run: func(n int) error {
			if !prefill {
				if err := e.produce(stream, n); err != nil {
					return err
				}
			}
			select {
			case <-g.reached:
			case <-time.After(time.Minute):
				return errors.New(g.name + ": entries not handled within a minute")
			}
			return e.settled(stream)
		},
	}
}

func newGroupBench(b *testing.B) (*groupBench, []*groupContender) {
	e := &groupBench{benchEnv: newBenchEnv(b)}
	cs := []*groupContender{{name: "ours"}, {name: "raw"}, {name: "watermill"}}
	cs[0].start, cs[1].start, cs[2].start = e.ours(cs[0]), e.raw(cs[1]), e.watermill(cs[2])
	for _, c := range cs {
		c.target = groupRound
	}
	return e, cs
}

// BenchmarkGroupEndToEnd: append → handle → ack throughput with a no-op
// handler, the producer appending while the consumer runs. x_vs_raw is how
// many times faster ours is than the raw loop (target ≥ 0.8), x_vs_watermill
// than Watermill (target ≥ 5).
func BenchmarkGroupEndToEnd(b *testing.B) {
	e, cs := newGroupBench(b)
	compareRounds(b, groupRound, "entries/s", e.side(b, cs[0], false), e.side(b, cs[1], false), e.side(b, cs[2], false))
}

// BenchmarkGroupDrain: the same on a prefilled stream, so only consuming is
// timed.
func BenchmarkGroupDrain(b *testing.B) {
	e, cs := newGroupBench(b)
	compareRounds(b, groupRound, "entries/s", e.side(b, cs[0], true), e.side(b, cs[1], true), e.side(b, cs[2], true))
}

// BenchmarkGroupLatency: delivery latency (append call to handler start) at
// a steady latencyRate appends per second, one Append each, reported as
// p50/p99 in microseconds for ours and the raw loop.
func BenchmarkGroupLatency(b *testing.B) {
	e, cs := newGroupBench(b)
	for _, g := range cs[:2] {
		var mu sync.Mutex
		var lat []time.Duration
		g.onHandle = func(fields []string) {
			now := time.Now()
			for i := 0; i+1 < len(fields); i += 2 {
				if fields[i] == "t" {
					ns, _ := strconv.ParseInt(fields[i+1], 10, 64)
					mu.Lock()
					lat = append(lat, now.Sub(time.Unix(0, ns)))
					mu.Unlock()
				}
			}
		}
		b.Run(g.name, func(b *testing.B) {
			g.target = latencyPerRound
			lat = lat[:0]
			for b.Loop() {
				e.round++
				stream := "lat" + strconv.Itoa(e.round)
				g.handled.Store(0)
				g.reached = make(chan struct{})
				stop, err := g.start(stream)
				require.NoError(b, err)
				s := e.emq.Stream(e.q, stream)
				tick := time.NewTicker(time.Second / latencyRate)
				for range latencyPerRound {
					<-tick.C
					_, err := s.Append(ctx, echomq.F("t", strconv.FormatInt(time.Now().UnixNano(), 10)), nil)
					require.NoError(b, err)
				}
				tick.Stop()
				echomqtest.Recv(b, g.reached, time.Minute, g.name+": the round's entries handled")
				require.NoError(b, stop())
			}
			mu.Lock()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50_us")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99_us")
			mu.Unlock()
		})
	}
}
