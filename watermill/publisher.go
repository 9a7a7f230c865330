package watermill

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	wmill "github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/echomq/echomq"
)

// ErrPublisherClosed is returned by Publish after Close.
var ErrPublisherClosed = errors.New("echomq/watermill: publisher closed")

// ErrNoClient is returned by the constructors when the config has no client.
var ErrNoClient = errors.New("echomq/watermill: a client is required")

// DefaultPublishTimeout bounds one Publish call.
const DefaultPublishTimeout = 30 * time.Second

// PublisherConfig configures [NewPublisher]. Only Client is required.
type PublisherConfig struct {
	// Client is the EchoMQ connection; the publisher does not close it.
	// Required.
	Client *echomq.Client

	// Topics maps topics onto queues and streams. Defaults to
	// OneQueue("watermill"). Subscribers must use the same mapping.
	Topics Topics

	// Marshaler encodes messages. Defaults to [DefaultMarshaler].
	Marshaler Marshaler

	// Timeout bounds one Publish call (the engine round trips of its
	// batch). Defaults to 30s.
	Timeout time.Duration

	// Logger receives the publisher's debug logs. Defaults to
	// watermill.NopLogger.
	Logger wmill.LoggerAdapter
}

func (c *PublisherConfig) defaults() error {
	if c.Client == nil {
		return ErrNoClient
	}
	if c.Topics == nil {
		c.Topics = OneQueue(DefaultQueue)
	}
	if c.Marshaler == nil {
		c.Marshaler = DefaultMarshaler{}
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultPublishTimeout
	}
	if c.Timeout < 0 {
		return &echomq.ArgumentError{Name: "timeout", Reason: "must not be negative"}
	}
	if c.Logger == nil {
		c.Logger = wmill.NopLogger{}
	}
	return nil
}

// DefaultQueue is the queue of every topic under the default mapping.
const DefaultQueue = "watermill"

// Publisher appends Watermill messages to EchoMQ streams. It implements
// message.Publisher and is safe for concurrent use.
type Publisher struct {
	cfg PublisherConfig

	mu       sync.RWMutex // held for reading by each Publish, for writing by Close
	closed   bool
	inflight sync.WaitGroup
}

// NewPublisher returns a publisher. Errors: [ErrNoClient]; an
// [*echomq.ArgumentError] for a negative timeout.
func NewPublisher(cfg PublisherConfig) (*Publisher, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	return &Publisher{cfg: cfg}, nil
}

// Publish appends the messages to the topic's stream in one pipeline, in
// order: without other writers on the stream they land contiguously, and
// a subscriber sees them in this order. Each entry gets a branded receipt
// (its "id" field) minted by the client; the message UUID and metadata
// travel as the fields of the [Marshaler].
//
// Publish returns when every message is stored or the call failed; on
// failure some messages may be stored (each message's fate is in the
// [*echomq.BatchError]), so a retry can duplicate them: delivery is at
// least once, deduplicate by UUID where it matters. Errors:
// [ErrPublisherClosed]; a [*TopicError] or [*echomq.NameError] for a topic
// that cannot be mapped, a marshaling error or an [*echomq.FieldError]
// (before any I/O, nothing written); the engine's errors.
func (p *Publisher) Publish(topic string, messages ...*message.Message) error {
	p.mu.RLock()
	if p.closed {
		p.mu.RUnlock()
		return ErrPublisherClosed
	}
	p.inflight.Add(1)
	p.mu.RUnlock()
	defer p.inflight.Done()

	loc, err := p.cfg.Topics(topic)
	if err != nil {
		return err
	}
	stream := p.cfg.Client.Stream(loc.Queue, loc.Stream)
	if err := stream.Err(); err != nil {
		return err
	}
	records := make([]echomq.Fields, len(messages))
	for i, msg := range messages {
		if records[i], err = p.cfg.Marshaler.Marshal(topic, msg); err != nil {
			return fmt.Errorf("echomq/watermill: marshal message %s: %w", msg.UUID, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.Timeout)
	defer cancel()
	ids, err := stream.AppendBatch(ctx, records)
	if err != nil {
		return err
	}
	for i, msg := range messages {
		p.cfg.Logger.Trace("message published", wmill.LogFields{"topic": topic, "uuid": msg.UUID, "id": ids[i].String()})
	}
	return nil
}

// Close stops the publisher: it waits for the Publish calls under way, and
// later calls return [ErrPublisherClosed]. It is idempotent and does not
// close the client.
func (p *Publisher) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.inflight.Wait()
	return nil
}
