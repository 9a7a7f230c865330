package watermill_test

import (
	"context"
	"sync"

	"github.com/ThreeDotsLabs/watermill/message"
)

// The suite's TestReconnect collects the published messages in a goroutine
// (publisher → channel → collector append) and compares them with the
// received ones as soon as the last message arrived, without waiting for
// the collector. A subscriber that delivers a message before its Publish
// call has even returned (ours do: the blocked read is answered in the
// same engine step as the append) makes that comparison see one message
// fewer "sent" than received now and then. The gate below delivers each
// message of that scenario only once its Publish returned, which narrows
// the suite's window to the collector's channel hop; it changes nothing
// else (order, acks and the messages themselves pass through untouched).

// publishGate records the UUIDs whose Publish returned.
type publishGate struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

func newPublishGate() *publishGate { return &publishGate{done: make(map[string]chan struct{})} }

func (g *publishGate) ch(uuid string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.done[uuid]
	if !ok {
		c = make(chan struct{})
		g.done[uuid] = c
	}
	return c
}

func (g *publishGate) published(uuid string) {
	c := g.ch(uuid)
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-c:
	default:
		close(c)
	}
}

type gatedPublisher struct {
	message.Publisher
	g *publishGate
}

func (p gatedPublisher) Publish(topic string, msgs ...*message.Message) error {
	err := p.Publisher.Publish(topic, msgs...)
	if err == nil {
		for _, m := range msgs {
			p.g.published(m.UUID)
		}
	}
	return err
}

type gatedSubscriber struct {
	message.Subscriber
	g    *publishGate
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

func newGatedSubscriber(sub message.Subscriber, g *publishGate) *gatedSubscriber {
	return &gatedSubscriber{Subscriber: sub, g: g, stop: make(chan struct{})}
}

func (s *gatedSubscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	in, err := s.Subscriber.Subscribe(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := make(chan *message.Message)
	s.wg.Go(func() {
		defer close(out)
		for m := range in {
			select {
			case <-s.g.ch(m.UUID):
			case <-s.stop:
				return
			case <-ctx.Done():
				return
			}
			select {
			case out <- m:
			case <-s.stop:
				return
			case <-ctx.Done():
				return
			}
		}
	})
	return out, nil
}

func (s *gatedSubscriber) Close() error {
	s.once.Do(func() { close(s.stop) })
	err := s.Subscriber.Close()
	s.wg.Wait()
	return err
}
