package echomq_test

import (
	"context"
	"fmt"
	"time"

	"github.com/echomq/echomq"
)

// The "whole game" feed of codemojex: every domain stream of queue cm
// followed as one log, in entry-id order across the streams, resumable from
// a checkpoint per stream.
func ExampleStreamSet_Follower() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	for _, e := range []struct{ stream, fields string }{
		{"room-opened", "ROM1"}, {"game-started", "GAM1"}, {"player-joined", "PLR1"}, {"guess-scored", "480"}, {"game-settled", "PLR1"},
	} {
		if _, err := client.Stream("cm", e.stream).Append(ctx, echomq.F("v", e.fields)); err != nil {
			panic(err)
		}
	}
	game := client.Streams("cm", "room-opened", "game-started", "player-joined", "guess-scored", "game-settled")
	f, err := game.Follower(&echomq.SetFollowOpts{Start: echomq.StartHead, Settle: time.Millisecond})
	if err != nil {
		panic(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := 0
	for ev, err := range f.Follow(fctx) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ev.Entry, ev.Stream, ev.Fields)
		if n++; n == 5 {
			break
		}
	}
	fmt.Println(f.Checkpoint())
	// Output:
	// 1777636801000-4096 room-opened [v ROM1]
	// 1777636802000-4096 game-started [v GAM1]
	// 1777636803000-4096 player-joined [v PLR1]
	// 1777636804000-4096 guess-scored [v 480]
	// 1777636805000-4096 game-settled [v PLR1]
	// game-settled=1777636805000-4096,game-started=1777636802000-4096,guess-scored=1777636804000-4096,player-joined=1777636803000-4096,room-opened=1777636801000-4096
}

// A prefix set finds the streams by name, those created later included.
func ExampleClient_StreamsPrefix() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	for _, s := range []string{"game-started", "game-settled", "guess-scored"} {
		if _, err := client.Stream("cm", s).Append(ctx, echomq.F("n", "1")); err != nil {
			panic(err)
		}
	}
	names, err := client.StreamsPrefix("cm", "game-").Names(ctx)
	fmt.Println(names, err)
	// Output:
	// [game-settled game-started] <nil>
}

// One consumer group across several streams, acknowledged per stream.
func ExampleClient_SetConsumer() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	for _, s := range []string{"room-opened", "guess-scored", "room-opened"} {
		if _, err := client.Stream("cm", s).Append(ctx, echomq.F("n", "1")); err != nil {
			panic(err)
		}
	}
	done := make(chan struct{})
	seen := 0
	c, err := client.SetConsumer(echomq.SetConsumerConfig{
		Set: client.Streams("cm", "room-opened", "guess-scored"), Group: "feed", Start: echomq.StartHead,
		Settle: time.Millisecond, Beat: 10 * time.Millisecond,
		Handle: func(_ context.Context, d echomq.Delivery) error {
			fmt.Println(d.Stream, d.Entry)
			if seen++; seen == 3 {
				close(done)
			}
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	_ = c.Start(ctx)
	select {
	case <-done:
	case <-time.After(time.Minute):
		fmt.Println("timed out")
	}
	_ = c.Stop(ctx)
	gi, _ := client.Group("cm", "room-opened", "feed").Info(ctx)
	fmt.Println("room-opened pending:", gi.Pending, "last delivered:", gi.LastDelivered)
	// Output:
	// room-opened 1777636801000-4096
	// guess-scored 1777636802000-4096
	// room-opened 1777636803000-4096
	// room-opened pending: 0 last delivered: 1777636803000-4096
}

func ExampleGroup_Reset() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	scored := client.Stream("cm", "guess-scored")
	var ids []echomq.ID
	for _, p := range []string{"120", "480", "600"} {
		id, _ := scored.Append(ctx, echomq.F("points", p))
		ids = append(ids, id)
	}
	g := scored.Group("notify")
	_, _ = g.Create(ctx, echomq.StartNew) // the group has seen everything
	res, err := g.Reset(ctx, &echomq.ResetOpts{ToID: ids[1].EntryID(), DryRun: true})
	fmt.Println(res.Redeliver, res.From, "→", res.To, res.DryRun, err)
	// Output:
	// 2 1777636803000-4096 → 1777636802000-4095 true <nil>
}

func ExampleReplay() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	scored := client.Stream("cm", "guess-scored")
	for _, p := range []string{"120", "480", "600", "90"} {
		_, _ = scored.Append(ctx, echomq.F("points", p))
	}
	t0 := time.Date(2026, 5, 1, 12, 0, 2, 0, time.UTC)
	res, err := echomq.Replay(ctx, scored, echomq.Window(t0, t0.Add(time.Second)), &echomq.ReplayOpts{
		Handle: func(_ context.Context, ev echomq.Event) error {
			fmt.Println(ev.Time().Format(time.TimeOnly), ev.Fields)
			return nil
		},
	})
	fmt.Println(res.Events, err)
	// Output:
	// 12:00:02 [points 480]
	// 12:00:03 [points 600]
	// 2 <nil>
}

func ExampleRetryAfter() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	_, _ = client.Stream("cm", "guess-scored").Append(ctx, echomq.F("points", "480"))
	done := make(chan struct{})
	c, _ := client.Consumer(echomq.ConsumerConfig{
		Queue: "cm", Stream: "guess-scored", Group: "notify", Start: echomq.StartHead,
		Beat: 10 * time.Millisecond, MinIdle: time.Hour,
		Handle: func(_ context.Context, d echomq.Delivery) error {
			if d.Attempts == 1 {
				fmt.Println("first delivery: the chat API says slow down")
				return echomq.RetryAfter(20 * time.Millisecond) // back well before MinIdle
			}
			fmt.Println("delivered again")
			close(done)
			return nil
		},
	})
	_ = c.Start(ctx)
	select {
	case <-done:
	case <-time.After(time.Minute):
		fmt.Println("timed out")
	}
	_ = c.Stop(ctx)
	// Output:
	// first delivery: the chat API says slow down
	// delivered again
}
