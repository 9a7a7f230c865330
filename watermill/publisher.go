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
func NewPublisher(config *PublisherConfig) (*Publisher, error) {
	var cfg PublisherConfig
	if config != nil {
		cfg = *config
	}
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
// A short engine outage (a restart, a failover) is ridden out: the
// messages not stored are sent again, in order, until Timeout (they then
// follow any message of the call that was stored). Publish returns when
// every message is stored or the call failed; on failure some messages may
// be stored, and a message whose reply was lost may be stored twice:
// delivery is at least once, deduplicate by UUID where it matters. Errors:
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
	ids, err := p.append(ctx, stream, records)
	if err != nil {
		return err
	}
	for i, msg := range messages {
		p.cfg.Logger.Trace("message published", wmill.LogFields{"topic": topic, "uuid": msg.UUID, "id": ids[i].String()})
	}
	return nil
}

// append appends the records, riding out a short engine outage: records a
// transient failure kept out are sent again (after the ones stored, in
// their order) until Timeout.
func (p *Publisher) append(ctx context.Context, stream *echomq.Stream, records []echomq.Fields) ([]echomq.ID, error) {
	ids := make([]echomq.ID, len(records))
	todo := make([]int, len(records))
	for i := range todo {
		todo[i] = i
	}
	err := retry(ctx, func(ctx context.Context) error {
		batch := make([]echomq.Fields, len(todo))
		for j, i := range todo {
			batch[j] = records[i]
		}
		got, err := stream.AppendBatch(ctx, batch, nil)
		var be *echomq.BatchError
		switch {
		case err == nil:
			for j, i := range todo {
				ids[i] = got[j]
			}
			todo = todo[:0]
			return nil
		case errors.As(err, &be) && len(be.Results) == len(todo):
			left := todo[:0]
			for j, r := range be.Results {
				if r.Err == nil {
					ids[todo[j]] = r.ID
				} else {
					left = append(left, todo[j])
				}
			}
			todo = left
			return err
		default:
			return err
		}
	})
	return ids, err
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
