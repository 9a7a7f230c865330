package watermill

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	wmill "github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/echomq/echomq"
)

// ErrSubscriberClosed is returned by Subscribe after Close.
var ErrSubscriberClosed = errors.New("echomq/watermill: subscriber closed")

// Subscriber reads Watermill messages from EchoMQ streams, as a member of
// a consumer group or in fan-out. It implements message.Subscriber and
// message.SubscribeInitializer and is safe for concurrent use.
//
// Each Subscribe channel carries one message at a time: the next message
// comes only after the previous one was acknowledged, so a subscription
// sees its topic in stream order, and a nacked message comes back at once,
// before any later one.
type Subscriber struct {
	cfg    SubscriberConfig
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	spent  *spentSet

	mu     sync.Mutex
	closed bool
	subs   sync.WaitGroup // one per live subscription
}

// NewSubscriber returns a subscriber; nothing is read until Subscribe.
// Errors: [ErrNoClient]; an [*echomq.ArgumentError] for an option out of
// range.
func NewSubscriber(config *SubscriberConfig) (*Subscriber, error) {
	var cfg SubscriberConfig
	if config != nil {
		cfg = *config
	}
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Subscriber{cfg: cfg, ctx: ctx, cancel: cancel, spent: newSpentSet(spentCap)}, nil
}

// Subscribe returns the channel of the topic's messages. In a group it
// first creates the group at Start when it does not exist (so messages
// published after Subscribe returned are never missed), then joins it as
// the next free consumer name; in fan-out it starts reading at Start.
//
// Every message must be acknowledged (Ack) or rejected (Nack): Ack
// acknowledges the entry in the group, Nack delivers the message again at
// once, its MetaAttempts one higher, until MaxDeliveries. The message's
// context ends at Ack, Nack, the ack deadline (groups) and Close.
//
// The channel is closed when ctx ends or the subscriber is closed, after
// the subscription stopped: a message being handled is handed back to the
// group (delivered again later) unless it is acknowledged within
// CloseGrace. Errors: [ErrSubscriberClosed]; a [*TopicError] or
// [*echomq.NameError] for a topic that cannot be mapped; the engine's
// errors from creating the group.
func (s *Subscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrSubscriberClosed
	}
	s.subs.Add(1)
	s.mu.Unlock()
	out, err := s.subscribe(ctx, topic)
	if err != nil {
		s.subs.Done()
		return nil, err
	}
	return out, nil
}

func (s *Subscriber) subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	stream, err := s.stream(topic)
	if err != nil {
		return nil, err
	}
	sub := &subscription{s: s, topic: topic, stream: stream, out: make(chan *message.Message)}
	// Subscribe's own engine calls end with ctx, Close or setupTimeout.
	callCtx, stopCall := context.WithTimeout(ctx, setupTimeout)
	defer stopCall()
	defer context.AfterFunc(s.ctx, stopCall)()
	if s.cfg.ConsumerGroup != "" {
		if err := sub.joinGroup(callCtx); err != nil {
			return nil, err
		}
	} else if err := sub.fanOutStart(callCtx); err != nil {
		return nil, err
	}
	sub.ctx, sub.cancel = context.WithCancel(ctx)
	unhook := context.AfterFunc(s.ctx, sub.cancel)
	go func() {
		defer s.subs.Done()
		defer close(sub.out)
		defer unhook()
		defer sub.cancel()
		sub.run()
	}()
	return sub.out, nil
}

// SubscribeInitialize creates the topic's consumer group at Start when it
// does not exist (and the stream with it), so that messages published
// before the first Subscribe reach the group. In fan-out it only checks
// the topic. Errors as Subscribe.
//
// Subscribe and SubscribeInitialize ride out a short engine outage: their
// engine calls are retried for up to 30s.
func (s *Subscriber) SubscribeInitialize(topic string) error {
	stream, err := s.stream(topic)
	if err != nil || s.cfg.ConsumerGroup == "" {
		return err
	}
	ctx, cancel := context.WithTimeout(s.ctx, setupTimeout)
	defer cancel()
	return s.createGroup(ctx, stream)
}

// setupTimeout bounds the engine calls of Subscribe and SubscribeInitialize,
// which ride out a short engine outage.
const setupTimeout = 30 * time.Second

// createGroup creates the group of stream at Start when missing.
func (s *Subscriber) createGroup(ctx context.Context, stream *echomq.Stream) error {
	return retry(ctx, func(ctx context.Context) error {
		_, err := stream.Group(s.cfg.ConsumerGroup).Create(ctx, s.cfg.Start)
		return err
	})
}

// Close stops every subscription and waits until their channels are
// closed and their goroutines gone; messages being handled have their
// contexts cancelled (after CloseGrace) and are handed back to their
// groups. It is idempotent, safe to call while messages wait for Ack or
// sit unread in a channel, and does not close the client. It returns
// within about Beat + CloseGrace.
func (s *Subscriber) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.subs.Wait()
	return nil
}

func (s *Subscriber) stream(topic string) (*echomq.Stream, error) {
	loc, err := s.cfg.Topics(topic)
	if err != nil {
		return nil, err
	}
	stream := s.cfg.Client.Stream(loc.Queue, loc.Stream)
	if err := stream.Err(); err != nil {
		return nil, err
	}
	return stream, nil
}

// subscription is one Subscribe: the goroutine that feeds out.
type subscription struct {
	s      *Subscriber
	topic  string
	stream *echomq.Stream
	out    chan *message.Message
	ctx    context.Context // ends with Subscribe's ctx or Close
	cancel context.CancelFunc

	// group mode
	consumer *echomq.Consumer
	release  func()
	// fan-out mode
	from echomq.Bound
}

func (sub *subscription) run() {
	if sub.consumer != nil {
		defer sub.release()
		// Run retries what fails while it runs, but not its first call
		// (creating the group): run it again while the engine is away.
		for {
			err := sub.consumer.Run(sub.ctx)
			if err == nil || sub.ctx.Err() != nil {
				return
			}
			if !transient(err) {
				sub.log().Error("subscription ended", err, nil)
				return
			}
			sub.log().Info("engine unreachable; retrying", wmill.LogFields{"err": err.Error(), "in": sub.s.cfg.Beat})
			t := time.NewTimer(sub.s.cfg.Beat)
			select {
			case <-t.C:
			case <-sub.ctx.Done():
			}
			t.Stop()
		}
	}
	sub.fanOut()
}

func (sub *subscription) log() wmill.LoggerAdapter {
	f := wmill.LogFields{"topic": sub.topic, "stream": sub.stream.Key()}
	if sub.consumer != nil {
		f["group"], f["consumer"] = sub.s.cfg.ConsumerGroup, sub.consumer.Name()
	}
	return sub.s.cfg.Logger.With(f)
}

// newMessage decodes ev and stamps the delivery metadata.
func (sub *subscription) newMessage(ev echomq.Event, attempts int64) (*message.Message, error) {
	msg, err := sub.s.cfg.Unmarshaler.Unmarshal(ev)
	if err != nil {
		return nil, err
	}
	if msg.Metadata == nil {
		msg.Metadata = make(message.Metadata, 3)
	}
	if ev.ID.IsZero() {
		msg.Metadata.Set(MetaID, "")
	} else {
		msg.Metadata.Set(MetaID, ev.ID.String())
	}
	msg.Metadata.Set(MetaEntry, ev.Entry.String())
	msg.Metadata.Set(MetaAttempts, strconv.FormatInt(attempts, 10))
	return msg, nil
}

// outcome is how one delivery of a message ended.
type outcome int

const (
	acked   outcome = iota
	nacked          // Nack: deliver again
	stopped         // the subscription stops, or the deadline passed
)

// offer hands msg to the channel and waits for its Ack or Nack. The
// message's context is a child of mctx and ends when offer returns. A
// message not yet taken is withdrawn as soon as the subscription stops; a
// taken one may still be acknowledged until hold ends.
func (sub *subscription) offer(msg *message.Message, hold context.Context) outcome {
	if sub.ctx.Err() != nil {
		return stopped // no new delivery once stopping, not even after a Nack
	}
	mctx, cancel := context.WithCancel(hold)
	defer cancel()
	msg.SetContext(mctx)
	select {
	case sub.out <- msg:
	case <-sub.ctx.Done():
		return stopped
	case <-hold.Done():
		return stopped
	}
	select {
	case <-msg.Acked():
		return acked
	case <-msg.Nacked():
		return nacked
	case <-hold.Done():
		return stopped
	}
}

// graceAfter returns a context that ends grace after parent ends (at once
// for a zero grace), and its cancel.
func graceAfter(parent context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	stop := context.AfterFunc(parent, func() {
		if grace <= 0 {
			cancel()
			return
		}
		t := time.AfterFunc(grace, cancel)
		context.AfterFunc(ctx, func() { t.Stop() })
	})
	return ctx, func() { stop(); cancel() }
}
