package watermill_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	wmill "github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
	emqwm "github.com/echomq/echomq/watermill"
)

// exampleConnect opens the examples' engine. Programs connect to their
// server with echomq.Config{URL: os.Getenv("EMQ_URL")}; the examples use
// the embedded in-process engine, so this is the only line that names it.
func exampleConnect(ctx context.Context) *echomq.Client {
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	return client
}

// A publisher and a consumer-group subscriber: a nacked message comes back
// at once, before the next one, with its delivery count.
func Example() {
	ctx := context.Background()
	client := exampleConnect(ctx)
	defer client.Close()

	pub, err := emqwm.NewPublisher(&emqwm.PublisherConfig{Client: client})
	if err != nil {
		panic(err)
	}
	defer pub.Close()
	sub, err := emqwm.NewSubscriber(&emqwm.SubscriberConfig{Client: client, ConsumerGroup: "mailer"})
	if err != nil {
		panic(err)
	}
	defer sub.Close()

	orders, err := sub.Subscribe(ctx, "orders.created") // creates the group at the stream's head
	if err != nil {
		panic(err)
	}
	for i, order := range []string{"A-1", "A-2"} {
		msg := message.NewMessage(fmt.Sprintf("order-%d", i+1), []byte(order))
		msg.Metadata.Set("customer", "c-42")
		if err := pub.Publish("orders.created", msg); err != nil {
			panic(err)
		}
	}
	for range 3 {
		var msg *message.Message
		select {
		case msg = <-orders:
		case <-time.After(30 * time.Second):
			fmt.Println("no delivery within 30s")
			return
		}
		fmt.Println(msg.UUID, string(msg.Payload), msg.Metadata.Get("customer"), "delivery", msg.Metadata.Get(emqwm.MetaAttempts))
		if msg.Metadata.Get(emqwm.MetaAttempts) == "1" && msg.UUID == "order-1" {
			msg.Nack() // redelivered at once
			continue
		}
		msg.Ack()
	}
	// Output:
	// order-1 A-1 c-42 delivery 1
	// order-1 A-1 c-42 delivery 2
	// order-2 A-2 c-42 delivery 1
}

// A Watermill router on the adapter, with the Retry and PoisonQueue
// middlewares: a handler that keeps failing is retried in process, then
// its message goes to the poison topic and the original is acknowledged.
func Example_router() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := exampleConnect(ctx)
	defer client.Close()

	pub, err := emqwm.NewPublisher(&emqwm.PublisherConfig{Client: client})
	if err != nil {
		panic(err)
	}
	defer pub.Close()
	sub, err := emqwm.NewSubscriber(&emqwm.SubscriberConfig{Client: client, ConsumerGroup: "billing", Beat: 50 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	defer sub.Close()

	router, err := message.NewRouter(message.RouterConfig{}, wmill.NopLogger{})
	if err != nil {
		panic(err)
	}
	poison, err := middleware.PoisonQueue(pub, "payments.poison")
	if err != nil {
		panic(err)
	}
	router.AddMiddleware(
		poison, // outermost: sees the error once Retry gave up
		middleware.Retry{MaxRetries: 2, InitialInterval: time.Millisecond}.Middleware,
	)

	events := make(chan string, 16)
	attempts := map[string]int{} // only the charge handler's goroutine touches it
	router.AddConsumerHandler("charge", "payments", sub, func(msg *message.Message) error {
		attempts[msg.UUID]++
		if string(msg.Payload) == "card declined" {
			events <- fmt.Sprintf("%s: attempt %d failed", msg.UUID, attempts[msg.UUID])
			return errors.New("card declined")
		}
		events <- msg.UUID + ": charged"
		return nil
	})
	router.AddConsumerHandler("audit", "payments.poison", sub, func(msg *message.Message) error {
		events <- fmt.Sprintf("%s: poisoned by handler %s: %s",
			msg.UUID, msg.Metadata.Get(middleware.PoisonedHandlerKey), msg.Metadata.Get(middleware.ReasonForPoisonedKey))
		return nil
	})

	done := make(chan error, 1)
	go func() { done <- router.Run(ctx) }()
	select {
	case <-router.Running():
	case <-time.After(30 * time.Second):
		fmt.Println("the router did not start within 30s")
		return
	}

	for _, p := range []struct{ uuid, payload string }{{"pay-1", "card declined"}, {"pay-2", "ok"}} {
		if err := pub.Publish("payments", message.NewMessage(p.uuid, []byte(p.payload))); err != nil {
			panic(err)
		}
	}
	var got []string // the two handlers run concurrently: sort their events
	for range 5 {
		select {
		case e := <-events:
			got = append(got, e)
		case <-time.After(30 * time.Second):
			fmt.Println("handler events within 30s:", got)
			return
		}
	}
	slices.Sort(got)
	for _, e := range got {
		fmt.Println(e)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			panic(err)
		}
	case <-time.After(30 * time.Second):
		fmt.Println("the router did not stop within 30s")
		return
	}
	info, err := client.Group(emqwm.DefaultQueue, "payments", "billing").Info(context.Background())
	if err != nil {
		panic(err)
	}
	dead, err := client.Stream(emqwm.DefaultQueue, "payments").DeadLetters().Len(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println("pending:", info.Pending, "dead letters:", dead)
	// Output:
	// pay-1: attempt 1 failed
	// pay-1: attempt 2 failed
	// pay-1: attempt 3 failed
	// pay-1: poisoned by handler charge: card declined
	// pay-2: charged
	// pending: 0 dead letters: 0
}
