package watermill

import (
	"time"

	wmill "github.com/ThreeDotsLabs/watermill"

	"github.com/echomq/echomq"
)

// Defaults of [SubscriberConfig].
const (
	DefaultPrefetch      = 100
	DefaultAckDeadline   = 30 * time.Second // echomq.ConsumerConfig.MinIdle's default
	DefaultBeat          = time.Second
	DefaultMaxDeliveries = 16 // echomq.ConsumerConfig.MaxDeliveries's default
)

// SubscriberConfig configures [NewSubscriber]. Only Client is required.
type SubscriberConfig struct {
	// Client is the EchoMQ connection; the subscriber does not close it.
	// Required.
	Client *echomq.Client

	// Topics maps topics onto queues and streams; it must equal the
	// publishers'. Defaults to OneQueue("watermill").
	Topics Topics

	// Unmarshaler decodes messages. Defaults to [DefaultMarshaler].
	Unmarshaler Unmarshaler

	// ConsumerGroup, when set, makes every Subscribe a member of this
	// EchoMQ consumer group of the topic's stream: the group's members
	// share the messages (each to one member, at least once), every
	// message is acknowledged, unacknowledged ones are redelivered, and
	// messages that use up MaxDeliveries go to the stream's dead letters.
	// The name follows [EscapeName]. Defaults to "": fan-out, where every
	// Subscribe reads the whole stream for itself (from Start), with no
	// state in the engine.
	ConsumerGroup string

	// Consumer is the base of the consumer names: the n-th concurrent
	// Subscribe of this process to one topic and group is the consumer
	// "<Consumer>-<n>" (n from 1; a name is reused once its subscription
	// ended), so a restarted process takes back the pending entries its
	// predecessor held. Defaults to [echomq.DefaultConsumerName]
	// ("<hostname>-<pid>"); give a stable name to processes that should
	// recover their own backlog at once rather than after AckDeadline.
	Consumer string

	// Start is where reading begins: for a consumer group the position of
	// a group that Subscribe or SubscribeInitialize creates (an existing
	// group keeps its position), in fan-out the position of each
	// Subscribe. Defaults to [echomq.StartHead]: the oldest stored entry,
	// so a new subscriber receives the messages published before it.
	// [echomq.StartNew] reads only what is published after Subscribe
	// returned.
	Start echomq.Start

	// Prefetch is how many entries one read fetches ahead of the
	// channel. In a group the ack deadline of a prefetched entry runs
	// from its fetch, so keep Prefetch × handling time well below
	// AckDeadline. Defaults to 100.
	Prefetch int

	// AckDeadline is how long a group member may hold a message
	// unacknowledged: the message's context ends then, and the entry is
	// given up and redelivered (to any member) once it has been idle that
	// long. It is also how long the entries of a crashed process wait
	// before another member takes them. Fan-out has no deadline.
	// Defaults to 30s.
	AckDeadline time.Duration

	// Beat is how often a group member reclaims idle entries, and how
	// long a blocking read waits; it bounds how long Close and a
	// cancelled Subscribe context take. Defaults to 1s.
	Beat time.Duration

	// MaxDeliveries is how many deliveries a message gets: when the
	// message that has had MaxDeliveries deliveries is nacked (or its ack
	// deadline passes), a group moves it to the stream's dead letters and
	// fan-out skips it with an error log. Defaults to 16; a negative value
	// disables the limit (a nacked message is redelivered for ever).
	MaxDeliveries int

	// CloseGrace is how long Close (or a cancelled Subscribe context) lets
	// a delivered message be acknowledged before its context is cancelled
	// and the entry handed back to the group. Defaults to 0: at once (a
	// group member waits at least 20ms, for its idle goroutines to stop).
	CloseGrace time.Duration

	// Logger receives the subscriber's logs. Defaults to
	// watermill.NopLogger. The EchoMQ consumers under a group log to the
	// client's logger.
	Logger wmill.LoggerAdapter
}

func (c *SubscriberConfig) defaults() error {
	if c.Client == nil {
		return ErrNoClient
	}
	if c.Topics == nil {
		c.Topics = OneQueue(DefaultQueue)
	}
	if c.Unmarshaler == nil {
		c.Unmarshaler = DefaultMarshaler{}
	}
	if c.Consumer == "" {
		c.Consumer = defaultConsumer()
	}
	if c.Start == 0 {
		c.Start = echomq.StartHead
	}
	if c.Prefetch == 0 {
		c.Prefetch = DefaultPrefetch
	}
	if c.AckDeadline == 0 {
		c.AckDeadline = DefaultAckDeadline
	}
	if c.Beat == 0 {
		c.Beat = DefaultBeat
	}
	if c.MaxDeliveries == 0 {
		c.MaxDeliveries = DefaultMaxDeliveries
	}
	if c.Logger == nil {
		c.Logger = wmill.NopLogger{}
	}
	bad := func(name, reason string) error { return &echomq.ArgumentError{Name: name, Reason: reason} }
	switch {
	case c.Start != echomq.StartHead && c.Start != echomq.StartNew:
		return bad("start", "must be StartHead or StartNew")
	case c.Prefetch < 0:
		return bad("prefetch", "must not be negative")
	case c.AckDeadline < 10*time.Millisecond:
		return bad("ack deadline", "must be at least 10ms")
	case c.Beat < time.Millisecond:
		return bad("beat", "must be at least 1ms")
	case c.CloseGrace < 0:
		return bad("close grace", "must not be negative")
	}
	if c.ConsumerGroup != "" {
		c.ConsumerGroup = EscapeName(c.ConsumerGroup)
	}
	if len(c.Consumer) > maxConsumer || !verbatim(c.Consumer) {
		return bad("consumer", "must match [A-Za-z0-9.-][A-Za-z0-9._-]{0,119}")
	}
	return nil
}

// maxConsumer leaves room for the "-<n>" the subscriptions append.
const maxConsumer = maxName - 8

// defaultConsumer is [echomq.DefaultConsumerName] cut to maxConsumer bytes
// (keeping the pid at its end) and not starting with "_".
func defaultConsumer() string {
	n := echomq.DefaultConsumerName()
	if len(n) > maxConsumer {
		n = n[len(n)-maxConsumer:]
	}
	if n[0] == escapeMark {
		n = "c" + n[1:]
	}
	return n
}
