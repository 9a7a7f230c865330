package echomq_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/echomq/echomq"
)

func ExampleClient_Consumer() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := exampleClient()
	defer client.Close()

	scored := client.Stream("cm", "guess-scored")
	for _, points := range []string{"120", "480", "600"} {
		if _, err := scored.Append(ctx, echomq.F("player", "PLR1", "points", points), nil); err != nil {
			panic(err)
		}
	}

	handled := 0
	c, err := client.Consumer(&echomq.ConsumerConfig{
		Queue: "cm", Stream: "guess-scored", Group: "notify", Name: "notifier-1",
		Start: echomq.StartHead, // a new group reads the stream from its oldest entry
		Beat:  50 * time.Millisecond,
		Handle: func(_ context.Context, d echomq.Delivery) error {
			fmt.Println(d.ID, d.Fields.Value("points"), "attempt", d.Attempts)
			if handled++; handled == 3 {
				cancel() // a graceful stop: Run acks what was handled and returns
			}
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	if err := c.Run(ctx); err != nil {
		panic(err)
	}
	info, err := client.Group("cm", "guess-scored", "notify").Info(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println("pending:", info.Pending, "last delivered:", info.LastDelivered)
	// Output:
	// EVT0MnGfUTMcz2 120 attempt 1
	// EVT0MnGfZ3DV3Y 480 attempt 1
	// EVT0MnGfdd4N84 600 attempt 1
	// pending: 0 last delivered: 1777636803000-4096
}

func ExampleDeadLetters() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	moved := make(deadLetterSignal, 1) // a DeadLetterHook
	client := exampleClient(moved)
	defer client.Close()

	scored := client.Stream("cm", "guess-scored")
	for _, points := range []string{"x1", "480"} {
		if _, err := scored.Append(ctx, echomq.F("player", "PLR1", "points", points), nil); err != nil {
			panic(err)
		}
	}
	c, err := client.Consumer(&echomq.ConsumerConfig{
		Queue: "cm", Stream: "guess-scored", Group: "tally", Start: echomq.StartHead,
		MinIdle: 50 * time.Millisecond, Beat: 10 * time.Millisecond, MaxDeliveries: 2,
		Logger: slog.New(slog.DiscardHandler),
		Handle: func(_ context.Context, d echomq.Delivery) error {
			if _, err := strconv.Atoi(d.Fields.Value("points")); err != nil {
				return fmt.Errorf("points %q: not a number", d.Fields.Value("points"))
			}
			fmt.Println("tallied", d.Fields.Value("points"))
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	select {
	case <-moved: // the poison entry fails twice, then moves
	case <-time.After(time.Minute):
		fmt.Println("timed out waiting for the dead letter")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			panic(err)
		}
	case <-time.After(time.Minute):
		fmt.Println("timed out waiting for the consumer to stop")
	}

	dead := scored.DeadLetters()
	letters, err := dead.List(context.Background(), echomq.All, nil)
	if err != nil {
		panic(err)
	}
	for _, dl := range letters {
		fmt.Println(dl.Origin, dl.Group, dl.Attempts, dl.Error, dl.Payload)
	}
	// After a fix, replay re-appends the payload as a new event.
	id, err := dead.Replay(context.Background(), letters[0].ID)
	if err != nil {
		panic(err)
	}
	fmt.Println("replayed as", id)
	left, err := dead.Len(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println("dead letters left:", left)
	// Output:
	// tallied 480
	// EVT0MnGfUTMcz2 tally 2 points "x1": not a number [player PLR1 points x1]
	// replayed as EVT0MnGfiCvFCa
	// dead letters left: 0
}

func ExampleOnce() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	send, err := echomq.Once(client, "cm", "welcome-mail", 24*time.Hour, func(_ context.Context, d echomq.Delivery) error {
		fmt.Println("mail sent for", d.ID)
		return nil
	})
	if err != nil {
		panic(err)
	}
	id, err := client.MintID(ctx, "cm", echomq.BrandEvent)
	if err != nil {
		panic(err)
	}
	d := echomq.Delivery{Event: echomq.Event{ID: id, Entry: id.EntryID()}, Attempts: 1}
	for range 2 { // a redelivery of a handled record is skipped
		if err := send(ctx, d); err != nil {
			panic(err)
		}
	}
	// Output:
	// mail sent for EVT0MnGfUTMcz2
}
