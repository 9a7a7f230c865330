package watermill_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	wmill "github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill-redisstream/pkg/redisstream"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/redis/go-redis/v9"

	"github.com/echomq/echomq/echomqtest"
	emqwm "github.com/echomq/echomq/watermill"
)

// The benchmarks compare this adapter with watermill-redisstream (the
// Redis Streams Pub/Sub Watermill users run today) on one private
// redis-server, in the same run, round by round with alternating order:
// each round gives each contender a fresh topic. Both use their defaults
// (ours: a consumer group, Prefetch 100, batched acks; theirs: one entry
// per XREADGROUP, one XACK per message). Messages carry a 16-byte payload
// and one metadata key, like watermill-benchmark's.
//
//	cd watermill && go test -run '^$' -bench . -benchtime 3x -count 3 .

const (
	benchRound      = 20000 // messages per contender per round
	benchPublishers = 16    // goroutines publishing one message per call
)

type benchEnv struct {
	b     *testing.B
	addr  string
	gr    *redis.Client // theirs, and the pending checks of both
	round int
	ours  struct{ pub *emqwm.Publisher }
	key   func(contender, topic string) string // the stream key of a topic
	mkOur func() *emqwm.Subscriber
	// closers are the subscribers of the running round: Close waits up to
	// a blocking read's timeout, which is not consuming.
	closers []message.Subscriber
}

func newBench(b *testing.B) *benchEnv {
	srv := echomqtest.Start(b)
	client := connect(b, srv.URL())
	q := echomqtest.Queue(b)
	topics := emqwm.OneQueue(q)
	e := &benchEnv{addr: srv.Addr(), b: b, gr: redis.NewClient(&redis.Options{Addr: srv.Addr()})}
	b.Cleanup(func() { _ = e.gr.Close() })
	pub, err := emqwm.NewPublisher(&emqwm.PublisherConfig{Client: client, Topics: topics})
	if err != nil {
		b.Fatal(err)
	}
	e.ours.pub = pub
	e.key = func(contender, topic string) string {
		if contender == "ours" {
			return client.Stream(q, topic).Key()
		}
		return topic
	}
	e.mkOur = func() *emqwm.Subscriber {
		s, err := emqwm.NewSubscriber(&emqwm.SubscriberConfig{Client: client, Topics: topics, ConsumerGroup: "g", Consumer: "c"})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	return e
}

func (e *benchEnv) publisher(contender string) message.Publisher {
	if contender == "ours" {
		return e.ours.pub
	}
	p, err := redisstream.NewPublisher(redisstream.PublisherConfig{Client: e.gr}, wmill.NopLogger{})
	if err != nil {
		e.b.Fatal(err)
	}
	return p
}

func (e *benchEnv) subscriber(contender string) message.Subscriber {
	if contender == "ours" {
		return e.mkOur()
	}
	// The subscriber closes its client on Close: give it its own.
	s, err := redisstream.NewSubscriber(redisstream.SubscriberConfig{
		Client: redis.NewClient(&redis.Options{Addr: e.addr}), ConsumerGroup: "g", Consumer: "c", OldestId: "0",
	}, wmill.NopLogger{})
	if err != nil {
		e.b.Fatal(err)
	}
	return s
}

func benchMessage(i int) *message.Message {
	m := message.NewMessage(wmill.NewUUID(), []byte("0123456789abcdef"))
	m.Metadata.Set("seq", strconv.Itoa(i))
	return m
}

// publishAll publishes n messages, one per Publish call, from
// benchPublishers goroutines.
func publishAll(b *testing.B, pub message.Publisher, topic string, n int) {
	var wg sync.WaitGroup
	per := n / benchPublishers
	for g := range benchPublishers {
		wg.Go(func() {
			for i := range per {
				if err := pub.Publish(topic, benchMessage(g*per+i)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// consumeAll subscribes, receives and acknowledges n messages, and waits
// until the group has nothing pending. The subscriber is closed after the
// clock (see compare).
func (e *benchEnv) consumeAll(contender, topic string, n int) {
	sub := e.subscriber(contender)
	e.closers = append(e.closers, sub)
	ch, err := sub.Subscribe(context.Background(), topic)
	if err != nil {
		e.b.Fatal(err)
	}
	for range n {
		select {
		case m := <-ch:
			m.Ack()
		case <-time.After(time.Minute):
			e.b.Fatalf("%s: no message within a minute", contender)
		}
	}
	key := e.key(contender, topic)
	for {
		p, err := e.gr.XPending(context.Background(), key, "g").Result()
		if err != nil {
			e.b.Fatal(err)
		}
		if p.Count == 0 {
			return
		}
		time.Sleep(200 * time.Microsecond) // sleep: a benchmark's drain poll, fine-grained not to show in its timings
	}
}

// compare runs b.N rounds of work for both contenders and reports their
// rates and the ratio.
func compare(b *testing.B, e *benchEnv, prepare func(contender, topic string), work func(contender, topic string)) {
	total := map[string]time.Duration{}
	contenders := []string{"ours", "redisstream"}
	for i := range b.N {
		for j := range contenders {
			c := contenders[(i+j)%2]
			e.round++
			topic := fmt.Sprintf("bench-%s-%d", c, e.round)
			b.StopTimer()
			if prepare != nil {
				prepare(c, topic)
			}
			b.StartTimer()
			start := time.Now()
			work(c, topic)
			total[c] += time.Since(start)
			b.StopTimer()
			for _, s := range e.closers {
				_ = s.Close()
			}
			e.closers = e.closers[:0]
			b.StartTimer()
		}
	}
	n := float64(b.N * benchRound)
	ours, theirs := n/total["ours"].Seconds(), n/total["redisstream"].Seconds()
	b.ReportMetric(ours, "ours_msgs/s")
	b.ReportMetric(theirs, "redisstream_msgs/s")
	b.ReportMetric(ours/theirs, "x_vs_redisstream")
}

// BenchmarkPublish: messages published one per call by 16 goroutines.
func BenchmarkPublish(b *testing.B) {
	e := newBench(b)
	compare(b, e, nil, func(c, topic string) { publishAll(b, e.publisher(c), topic, benchRound) })
}

// BenchmarkSubscribe: a backlog consumed by one subscription of a consumer
// group, every message acknowledged, until nothing is pending. Ours must
// reach at least 5× theirs.
func BenchmarkSubscribe(b *testing.B) {
	e := newBench(b)
	compare(b, e,
		func(c, topic string) { publishAll(b, e.publisher(c), topic, benchRound) },
		func(c, topic string) { e.consumeAll(c, topic, benchRound) })
}

// BenchmarkHandoff is the ceiling of any Watermill subscriber: a message
// handed over a channel and acknowledged, one at a time, with nothing
// else (no engine, no decoding).
func BenchmarkHandoff(b *testing.B) {
	out, stop := make(chan *message.Message), make(chan struct{})
	defer close(stop) // a handoff that stalled: the sender ends too
	go func() {
		for range b.N {
			m := message.NewMessage("x", nil)
			ctx, cancel := context.WithCancel(context.Background())
			m.SetContext(ctx)
			select {
			case out <- m:
			case <-stop:
				cancel()
				return
			}
			<-m.Acked()
			cancel()
		}
	}()
	stall := time.NewTimer(time.Minute) // bounds each handoff; reset, not made anew, not to weigh on it
	defer stall.Stop()
	start := time.Now()
	for range b.N {
		select {
		case m := <-out:
			m.Ack()
		case <-stall.C:
			b.Fatal("no message handed over within a minute")
		}
		stall.Reset(time.Minute)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}
