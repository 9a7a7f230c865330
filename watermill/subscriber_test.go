package watermill_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
	emqwm "github.com/echomq/echomq/watermill"
)

// waitFor bounds every wait of these tests; on a loaded machine nothing
// here takes more than a fraction of it.
const waitFor = 30 * time.Second

// env is one test's client and queue on the shared engine.
type env struct {
	t      *testing.T
	client *echomq.Client
	queue  string
	topics emqwm.Topics
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := echomqtest.Shared(t)
	q := echomqtest.Queue(t)
	return &env{t: t, client: connect(t, srv.URL()), queue: q, topics: emqwm.OneQueue(q)}
}

func (e *env) publisher() *emqwm.Publisher {
	p, err := emqwm.NewPublisher(&emqwm.PublisherConfig{Client: e.client, Topics: e.topics})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = p.Close() })
	return p
}

func (e *env) subscriber(cfg emqwm.SubscriberConfig) *emqwm.Subscriber {
	cfg.Client, cfg.Topics = e.client, e.topics
	if cfg.Beat == 0 {
		cfg.Beat = 50 * time.Millisecond
	}
	s, err := emqwm.NewSubscriber(&cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = s.Close() })
	return s
}

func (e *env) publish(p *emqwm.Publisher, topic string, payloads ...string) []*message.Message {
	msgs := make([]*message.Message, len(payloads))
	for i, pl := range payloads {
		msgs[i] = message.NewMessage(fmt.Sprintf("%s-%d", e.queue, i), []byte(pl))
		msgs[i].Metadata.Set("n", strconv.Itoa(i))
	}
	if err := p.Publish(topic, msgs...); err != nil {
		e.t.Fatal(err)
	}
	return msgs
}

func next(t *testing.T, ch <-chan *message.Message) *message.Message {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("channel closed")
		}
		return m
	case <-time.After(waitFor):
		t.Fatal("no message")
	}
	return nil
}

func TestAckNackInOrder(t *testing.T) {
	t.Parallel()
	for _, group := range []string{"g", ""} {
		t.Run("group="+group, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			pub := e.publisher()
			sent := e.publish(pub, "orders", "a", "b", "c")
			sub := e.subscriber(emqwm.SubscriberConfig{ConsumerGroup: group})
			ch, err := sub.Subscribe(context.Background(), "orders")
			if err != nil {
				t.Fatal(err)
			}
			type got struct{ uuid, payload, n, attempts string }
			var seq []got
			for i := range 5 {
				m := next(t, ch)
				seq = append(seq, got{m.UUID, string(m.Payload), m.Metadata.Get("n"), m.Metadata.Get(emqwm.MetaAttempts)})
				if !strings.HasPrefix(m.Metadata.Get(emqwm.MetaID), "EVT") || m.Metadata.Get(emqwm.MetaEntry) == "" {
					t.Fatalf("delivery metadata %v", m.Metadata)
				}
				if i < 2 { // the first message twice: redelivered at once, before b
					m.Nack()
				} else {
					m.Ack()
				}
				select {
				case <-m.Context().Done():
				case <-time.After(waitFor):
					t.Fatal("message context not cancelled after Ack/Nack")
				}
			}
			want := []got{
				{sent[0].UUID, "a", "0", "1"},
				{sent[0].UUID, "a", "0", "2"},
				{sent[0].UUID, "a", "0", "3"},
				{sent[1].UUID, "b", "1", "1"},
				{sent[2].UUID, "c", "2", "1"},
			}
			if fmt.Sprint(seq) != fmt.Sprint(want) {
				t.Fatalf("deliveries\n got %v\nwant %v", seq, want)
			}
			if group != "" {
				info, err := e.client.Group(e.queue, "orders", group).Info(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				// Acks are sent in the background; everything settles.
				echomqtest.WaitFor(t, waitFor, "nothing pending after every Ack", func() bool {
					info, _ = e.client.Group(e.queue, "orders", group).Info(context.Background())
					return info.Pending == 0
				})
			}
		})
	}
}

func TestDeadLetterAfterMaxDeliveries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pub := e.publisher()
	sent := e.publish(pub, "pay", "poison", "fine")
	sub := e.subscriber(emqwm.SubscriberConfig{ConsumerGroup: "g", MaxDeliveries: 3, AckDeadline: 200 * time.Millisecond})
	ch, err := sub.Subscribe(context.Background(), "pay")
	if err != nil {
		t.Fatal(err)
	}
	var poisonID string
	for i := 1; i <= 3; i++ {
		m := next(t, ch)
		if m.UUID != sent[0].UUID || m.Metadata.Get(emqwm.MetaAttempts) != strconv.Itoa(i) {
			t.Fatalf("delivery %d: %s attempts %s", i, m.UUID, m.Metadata.Get(emqwm.MetaAttempts))
		}
		poisonID = m.Metadata.Get(emqwm.MetaID)
		m.Nack()
	}
	// The poison message used up its deliveries: the next one flows.
	m := next(t, ch)
	if m.UUID != sent[1].UUID {
		t.Fatalf("got %s after the last Nack, want %s", m.UUID, sent[1].UUID)
	}
	m.Ack()
	dead := e.client.Stream(e.queue, "pay").DeadLetters()
	var letters []echomq.DeadLetter
	echomqtest.WaitFor(t, waitFor, "the poison message's dead letter", func() bool {
		if letters, err = dead.List(context.Background(), echomq.All, nil); err != nil {
			t.Fatal(err)
		}
		return len(letters) > 0
	})
	if len(letters) != 1 {
		t.Fatalf("%d dead letters, want 1", len(letters))
	}
	dl := letters[0]
	if dl.Origin.String() != poisonID || dl.Group != "g" || dl.Attempts != 3 || !strings.Contains(dl.Error, "nacked") ||
		dl.Payload.Value("uuid") != sent[0].UUID || dl.Payload.Value("payload") != "poison" {
		t.Fatalf("dead letter %+v", dl)
	}
	info, err := e.client.Group(e.queue, "pay", "g").Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	echomqtest.WaitFor(t, waitFor, "the poison message to be settled (nothing pending)", func() bool {
		info, _ = e.client.Group(e.queue, "pay", "g").Info(context.Background())
		return info.Pending == 0
	})
}

func TestAckDeadlineRedelivers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pub := e.publisher()
	sent := e.publish(pub, "slow", "x")
	sub := e.subscriber(emqwm.SubscriberConfig{ConsumerGroup: "g", AckDeadline: 300 * time.Millisecond})
	ch, err := sub.Subscribe(context.Background(), "slow")
	if err != nil {
		t.Fatal(err)
	}
	m := next(t, ch)
	select { // never acknowledged: its context ends at the deadline
	case <-m.Context().Done():
	case <-time.After(waitFor):
		t.Fatal("context still live after the ack deadline")
	}
	again := next(t, ch)
	if again.UUID != sent[0].UUID || again.Metadata.Get(emqwm.MetaAttempts) != "2" {
		t.Fatalf("redelivery %s attempts %s", again.UUID, again.Metadata.Get(emqwm.MetaAttempts))
	}
	again.Ack()
}

func TestGroupMembersShare(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pub := e.publisher()
	payloads := make([]string, 200)
	for i := range payloads {
		payloads[i] = strconv.Itoa(i)
	}
	sent := e.publish(pub, "jobs", payloads...)
	sub := e.subscriber(emqwm.SubscriberConfig{ConsumerGroup: "workers", Prefetch: 10})
	ctx := context.Background()
	a, err := sub.Subscribe(ctx, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	b, err := sub.Subscribe(ctx, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	last := map[<-chan *message.Message]int{a: -1, b: -1}
	for len(seen) < len(sent) {
		var m *message.Message
		var from <-chan *message.Message
		select {
		case m = <-a:
			from = a
		case m = <-b:
			from = b
		case <-time.After(waitFor):
			t.Fatalf("%d of %d received", len(seen), len(sent))
		}
		seen[m.UUID]++
		var n int
		fmt.Sscan(m.Metadata.Get("n"), &n)
		if n <= last[from] {
			t.Fatalf("member out of order: %d after %d", n, last[from])
		}
		last[from] = n
		m.Ack()
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s delivered %d times", id, n)
		}
	}
}

func TestFanOutStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pub := e.publisher()
	old := e.publish(pub, "news", "old")
	head := e.subscriber(emqwm.SubscriberConfig{})
	fresh := e.subscriber(emqwm.SubscriberConfig{Start: echomq.StartNew})
	ctx := context.Background()
	h1, _ := head.Subscribe(ctx, "news")
	h2, _ := head.Subscribe(ctx, "news")
	n1, err := fresh.Subscribe(ctx, "news")
	if err != nil {
		t.Fatal(err)
	}
	recent := e.publish(pub, "news", "new")
	for _, ch := range []<-chan *message.Message{h1, h2} {
		for _, want := range []*message.Message{old[0], recent[0]} {
			if m := next(t, ch); m.UUID != want.UUID || string(m.Payload) != string(want.Payload) {
				t.Fatalf("fan-out got %s %q, want %s", m.UUID, m.Payload, want.UUID)
			} else {
				m.Ack()
			}
		}
	}
	if m := next(t, n1); string(m.Payload) != "new" {
		t.Fatalf("StartNew got %q first", m.Payload)
	} else {
		m.Ack()
	}
}

func TestCloseUnblocksAndHandsBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pub := e.publisher()
	sent := e.publish(pub, "t1", "held")
	e.publish(pub, "t2", "unread")
	sub := e.subscriber(emqwm.SubscriberConfig{ConsumerGroup: "g"})
	ctx := context.Background()
	held, err := sub.Subscribe(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	unread, err := sub.Subscribe(ctx, "t2")
	if err != nil {
		t.Fatal(err)
	}
	m := next(t, held) // taken, never acknowledged; t2's message is never read
	closed := make(chan error, 1)
	go func() { closed <- sub.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitFor):
		t.Fatal("Close blocked")
	}
	select {
	case <-m.Context().Done():
	default:
		t.Fatal("the held message's context survived Close")
	}
	for _, ch := range []<-chan *message.Message{held, unread} {
		select {
		case _, ok := <-ch:
			if ok {
				t.Fatal("a message after Close")
			}
		case <-time.After(waitFor):
			t.Fatal("a subscription's channel still open after Close")
		}
	}
	if err := sub.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	if _, err := sub.Subscribe(ctx, "t1"); !errors.Is(err, emqwm.ErrSubscriberClosed) {
		t.Fatalf("Subscribe after Close: %v", err)
	}
	// The held entry went back to the group: the next member gets it.
	next2 := e.subscriber(emqwm.SubscriberConfig{ConsumerGroup: "g"})
	ch, err := next2.Subscribe(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if again := next(t, ch); again.UUID != sent[0].UUID || again.Metadata.Get(emqwm.MetaAttempts) != "2" {
		t.Fatalf("after Close: %s attempts %s", again.UUID, again.Metadata.Get(emqwm.MetaAttempts))
	} else {
		again.Ack()
	}
}

func TestSubscribeContextCloses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, group := range []string{"g", ""} {
		sub := e.subscriber(emqwm.SubscriberConfig{ConsumerGroup: group})
		ctx, cancel := context.WithCancel(context.Background())
		ch, err := sub.Subscribe(ctx, "idle")
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		select {
		case _, ok := <-ch:
			if ok {
				t.Fatal("message on an empty topic")
			}
		case <-time.After(waitFor):
			t.Fatalf("group %q: channel open after its context ended", group)
		}
	}
}

// failingMarshaler refuses every message.
type failingMarshaler struct{}

var errRefused = errors.New("refused")

func (failingMarshaler) Marshal(string, *message.Message) (echomq.Fields, error) {
	return nil, errRefused
}

// idMarshaler writes the reserved field.
type idMarshaler struct{}

func (idMarshaler) Marshal(string, *message.Message) (echomq.Fields, error) {
	return echomq.F("id", "x"), nil
}

func TestPublishErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	if _, err := rawcmd.Do(ctx, e.client, "SET", e.client.Stream(e.queue, "str").Key(), "v"); err != nil {
		t.Fatal(err)
	}
	closed := e.publisher()
	_ = closed.Close()
	cases := []struct {
		name  string
		cfg   emqwm.PublisherConfig
		pub   *emqwm.Publisher
		topic string
		want  error
	}{
		{"empty topic", emqwm.PublisherConfig{}, nil, "", emqwm.ErrInvalidTopic},
		{"bad queue", emqwm.PublisherConfig{Topics: emqwm.OneQueue("no:colons")}, nil, "t", echomq.ErrInvalidName},
		{"marshal error", emqwm.PublisherConfig{Marshaler: failingMarshaler{}}, nil, "m", errRefused},
		{"reserved field", emqwm.PublisherConfig{Marshaler: idMarshaler{}}, nil, "r", echomq.ErrReservedField},
		{"wrong type", emqwm.PublisherConfig{}, nil, "str", echomq.ErrWrongType},
		{"closed", emqwm.PublisherConfig{}, closed, "c", emqwm.ErrPublisherClosed},
	}
	for _, c := range cases {
		p := c.pub
		if p == nil {
			cfg := c.cfg
			cfg.Client = e.client
			if cfg.Topics == nil {
				cfg.Topics = e.topics
			}
			var err error
			if p, err = emqwm.NewPublisher(&cfg); err != nil {
				t.Fatal(err)
			}
		}
		err := p.Publish(c.topic, message.NewMessage("u", []byte("p")))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if c.topic != "" && c.topic != "str" && !errors.Is(c.want, echomq.ErrInvalidName) {
			info, err := e.client.Stream(e.queue, c.topic).Info(ctx)
			if err != nil || info.Exists {
				t.Errorf("%s: the stream was written (%v)", c.name, err)
			}
		}
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if _, err := emqwm.NewPublisher(&emqwm.PublisherConfig{}); !errors.Is(err, emqwm.ErrNoClient) {
		t.Errorf("publisher without client: %v", err)
	}
	if _, err := emqwm.NewPublisher(&emqwm.PublisherConfig{Client: e.client, Timeout: -1}); !errors.Is(err, echomq.ErrInvalidArgument) {
		t.Errorf("negative timeout: %v", err)
	}
	bad := []emqwm.SubscriberConfig{
		{},
		{Client: e.client, Prefetch: -1},
		{Client: e.client, AckDeadline: time.Millisecond},
		{Client: e.client, Beat: time.Microsecond},
		{Client: e.client, CloseGrace: -1},
		{Client: e.client, Start: echomq.Start(9)},
		{Client: e.client, Consumer: "no spaces"},
		{Client: e.client, Consumer: strings.Repeat("c", 125)},
	}
	for i, cfg := range bad {
		if _, err := emqwm.NewSubscriber(&cfg); err == nil {
			t.Errorf("config %d accepted", i)
		} else if i == 0 && !errors.Is(err, emqwm.ErrNoClient) || i > 0 && !errors.Is(err, echomq.ErrInvalidArgument) {
			t.Errorf("config %d: %v", i, err)
		}
	}
	sub := e.subscriber(emqwm.SubscriberConfig{ConsumerGroup: "g"})
	if _, err := sub.Subscribe(context.Background(), ""); !errors.Is(err, emqwm.ErrInvalidTopic) {
		t.Errorf("empty topic: %v", err)
	}
	if err := sub.SubscribeInitialize(""); !errors.Is(err, emqwm.ErrInvalidTopic) {
		t.Errorf("initialize empty topic: %v", err)
	}
}
