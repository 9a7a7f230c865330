package watermill_test

import (
	"context"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/echomq/echomq/echomqtest"
	emqwm "github.com/echomq/echomq/watermill"
)

// TestRidesOutRestart kills the engine, calls Subscribe and Publish while
// it is down, restarts it, and checks that both calls succeed and the
// message arrives.
func TestRidesOutRestart(t *testing.T) {
	t.Parallel()
	srv := durableServer(t)
	client := connect(t, srv.URL())
	topics := emqwm.OneQueue("outage")
	pub, err := emqwm.NewPublisher(&emqwm.PublisherConfig{Client: client, Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	sub, err := emqwm.NewSubscriber(&emqwm.SubscriberConfig{Client: client, Topics: topics, ConsumerGroup: "g", Beat: suiteBeat})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	type subscribed struct {
		ch  <-chan *message.Message
		err error
	}
	subDone, pubDone := make(chan subscribed, 1), make(chan error, 1)
	started := make(chan struct{}, 2)
	go func() {
		started <- struct{}{}
		ch, err := sub.Subscribe(context.Background(), "t")
		subDone <- subscribed{ch, err}
	}()
	echomqtest.Recv(t, started, waitFor, "the subscriber to start")
	s := echomqtest.Recv(t, func() chan subscribed { srv.Restart(t); return subDone }(), waitFor, "Subscribe across the restart")
	if s.err != nil {
		t.Fatalf("Subscribe across the restart: %v", s.err)
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	go func() {
		started <- struct{}{}
		pubDone <- pub.Publish("t", message.NewMessage("m1", []byte("x")))
	}()
	echomqtest.Recv(t, started, waitFor, "the publisher to start")
	srv.Restart(t)
	if err := echomqtest.Recv(t, pubDone, waitFor, "Publish across the restart"); err != nil {
		t.Fatalf("Publish across the restart: %v", err)
	}
	m := next(t, s.ch)
	if m.UUID != "m1" {
		t.Fatalf("got %s", m.UUID)
	}
	m.Ack()
}
