package echomq_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/echomq/echomq"
)

// RoomOpened is the current (v2) shape of a room-opened event; v1 called
// the emoji set "theme".
type RoomOpened struct {
	Room  string `json:"room"`
	Set   string `json:"set"`
	Seats int    `json:"seats"`
}

func ExampleNewTyped() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	opened := client.Stream("cm", "room-opened")
	// An event written before the type had a version: v1.
	if _, err := opened.Append(ctx, echomq.F("room", "ROM1", "theme", "animals", "seats", "4"), nil); err != nil {
		panic(err)
	}
	rooms := echomq.NewTyped[RoomOpened](opened, echomq.JSONFields[RoomOpened](), &echomq.TypedOpts{
		Upcasters: []echomq.UpcastFunc{
			func(f echomq.Fields) (echomq.Fields, error) { return f.Rename("theme", "set"), nil }, // v1 → v2
		},
	})
	if _, err := rooms.Append(ctx, RoomOpened{Room: "ROM2", Set: "flags", Seats: 6}, nil); err != nil {
		panic(err)
	}
	evs, err := rooms.Read(ctx, echomq.All, nil)
	if err != nil {
		panic(err)
	}
	for _, ev := range evs {
		fmt.Printf("v%d %+v\n", ev.Version, ev.Value)
	}
	raw, _ := opened.Read(ctx, echomq.All, &echomq.ReadOpts{Count: 1, Reverse: true})
	fmt.Println(raw[0].Fields)
	// Output:
	// v1 {Room:ROM1 Set:animals Seats:4}
	// v2 {Room:ROM2 Set:flags Seats:6}
	// [room ROM2 set flags seats 6 emq.v 2]
}

func ExampleJSONPayload() {
	codec := echomq.JSONPayload[RoomOpened]("")
	f, _ := codec.Encode(RoomOpened{Room: "ROM1", Set: "animals", Seats: 4})
	fmt.Println(f)
	v, _ := codec.Decode(f)
	fmt.Printf("%+v\n", v)
	// Output:
	// [payload {"room":"ROM1","set":"animals","seats":4}]
	// {Room:ROM1 Set:animals Seats:4}
}

func ExampleTyped_Handler() {
	ctx := context.Background()
	moved := make(deadLetterSignal, 1) // a DeadLetterHook
	client := exampleClient(moved)
	defer client.Close()

	opened := client.Stream("cm", "room-opened")
	rooms := echomq.NewTyped[RoomOpened](opened, nil, nil)
	_, _ = rooms.Append(ctx, RoomOpened{Room: "ROM1", Set: "animals", Seats: 4}, nil)
	_, _ = opened.Append(ctx, echomq.F("room", "ROM2", "seats", "many"), nil) // does not decode
	_, _ = rooms.Append(ctx, RoomOpened{Room: "ROM3", Set: "flags", Seats: 2}, nil)

	done := make(chan struct{})
	seen := 0
	c, err := client.Consumer(&echomq.ConsumerConfig{
		Queue: "cm", Stream: "room-opened", Group: "lobby", Start: echomq.StartHead,
		Beat: 10 * time.Millisecond, Logger: slog.New(slog.DiscardHandler),
		Handle: rooms.Handler(func(_ context.Context, d echomq.TypedDelivery[RoomOpened]) error {
			fmt.Println("opened", d.Value.Room, "with", d.Value.Seats, "seats")
			if seen++; seen == 2 {
				close(done)
			}
			return nil
		}),
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
	select {
	case <-moved: // the entry that does not decode goes to the dead letters
	case <-time.After(time.Minute):
		fmt.Println("timed out waiting for the dead letter")
	}
	_ = c.Stop(ctx)
	letters, _ := opened.DeadLetters().List(ctx, echomq.All, nil)
	fmt.Println("dead:", letters[0].Attempts, "attempt;", letters[0].Error)
	// Output:
	// opened ROM1 with 4 seats
	// opened ROM3 with 2 seats
	// dead: 1 attempt; echomq: decode emq:{cm}:stream:room-opened entry 1777636802000-4096 (version 0) at codec: field "seats": "many" is not a JSON integer
}
