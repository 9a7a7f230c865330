package dcb_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/projection"
)

// exampleStore returns a store of queue "cm" on the embedded engine.
func exampleStore() (*dcb.Store, *echomq.Client) {
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	s, err := dcb.New(c, "cm")
	if err != nil {
		panic(err)
	}
	return s, c
}

func ExampleStore_Append() {
	ctx := context.Background()
	s, client := exampleStore()
	defer client.Close()

	game := dcb.Tags("game", "GAM1")
	if _, err := s.Append(ctx, []dcb.Append{{Stream: "game-opened", Tags: game, Fields: echomq.F("room", "dogs")}}, nil); err != nil {
		panic(err)
	}

	// A guess counts only while the game is open: read the game's
	// open/close events, decide, append on the condition that none came
	// since.
	q := dcb.Query{{Types: []string{"game-opened", "game-closed"}, Tags: game}}
	evs, after, err := s.ReadAll(ctx, q, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(evs), "event(s), read through position", after)

	// Meanwhile the game closes.
	if _, err := s.Append(ctx, []dcb.Append{{Stream: "game-closed", Tags: game}}, nil); err != nil {
		panic(err)
	}
	guess := dcb.Append{Stream: "guessed", Tags: append(dcb.Tags("player", "PLR1"), game...), Fields: echomq.F("word", "cat")}
	_, err = s.Append(ctx, []dcb.Append{guess}, &dcb.Condition{Query: q, After: after})
	if ce, ok := errors.AsType[*dcb.ConflictError](err); ok {
		fmt.Println(errors.Is(err, echomq.ErrConflict), "conflict with", ce.Stream, "at position", ce.Position)
	}
	// Output:
	// 1 event(s), read through position 1
	// true conflict with game-closed at position 2
}

func ExampleCondition_uniqueness() {
	ctx := context.Background()
	s, client := exampleStore()
	defer client.Close()

	// "A name is claimed once, ever": the condition's position is 0.
	name := dcb.Tags("name", "ada")
	once := &dcb.Condition{Query: dcb.Query{{Types: []string{"name-claimed"}, Tags: name}}, After: 0}
	claim := []dcb.Append{{Stream: "name-claimed", Tags: name, Fields: echomq.F("player", "PLR1")}}
	_, err := s.Append(ctx, claim, once)
	fmt.Println(err)
	_, err = s.Append(ctx, claim, once)
	fmt.Println(errors.Is(err, echomq.ErrConflict))
	// Output:
	// <nil>
	// true
}

func ExampleStore_Read() {
	ctx := context.Background()
	s, client := exampleStore()
	defer client.Close()

	for i, g := range []string{"GAM1", "GAM2", "GAM1"} {
		ev := dcb.Append{Stream: "guessed", Tags: dcb.Tags("game", g), Fields: echomq.F("n", strconv.Itoa(i))}
		if _, err := s.Append(ctx, []dcb.Append{ev}, nil); err != nil {
			panic(err)
		}
	}
	p, err := s.Read(ctx, dcb.Query{{Tags: dcb.Tags("game", "GAM1")}}, 0, &dcb.ReadOpts{Limit: 10})
	if err != nil {
		panic(err)
	}
	for _, ev := range p.Events {
		fmt.Println(ev.Position, ev.Stream, ev.Tags, ev.Fields)
	}
	fmt.Println("next", p.Next, "head", p.Head)
	// Output:
	// 1 guessed [game=GAM1] [n 0]
	// 3 guessed [game=GAM1] [n 2]
	// next 3 head 3
}

func ExampleDecide() {
	ctx := context.Background()
	s, client := exampleStore()
	defer client.Close()

	// "A player joins a game once": the state is whether the player's join
	// is among the query's events.
	join := func(game, player string) dcb.Decision[*projection.Counts] {
		tags := dcb.Tags("game", game, "player", player)
		return dcb.Decision[*projection.Counts]{
			Query: dcb.Query{{Types: []string{"player-joined"}, Tags: tags}},
			Fold:  projection.Count(),
			Decide: func(joins *projection.Counts) ([]dcb.Append, error) {
				if joins.Total > 0 {
					return nil, errors.New("already joined")
				}
				return []dcb.Append{{Stream: "player-joined", Tags: tags}}, nil
			},
		}
	}
	got, err := dcb.Decide(ctx, s, join("GAM1", "PLR1"), nil)
	fmt.Println(len(got), err)
	_, err = dcb.Decide(ctx, s, join("GAM1", "PLR1"), nil)
	fmt.Println(err)
	// Output:
	// 1 <nil>
	// already joined
}

func ExampleStore_Follow() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, client := exampleStore()
	defer client.Close()

	game := dcb.Tags("game", "GAM1")
	for _, st := range []string{"game-opened", "guessed", "game-closed"} {
		if _, err := s.Append(ctx, []dcb.Append{{Stream: st, Tags: game}}, nil); err != nil {
			panic(err)
		}
	}
	// Follow from a saved position (here 1): the events after it, then
	// those to come, in queue order.
	for ev, err := range s.Follow(ctx, dcb.Query{{Tags: game}}, 1, nil) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ev.Position, ev.Stream)
		if ev.Stream == "game-closed" {
			cancel()
		}
	}
	// Output:
	// 2 guessed
	// 3 game-closed
}

// A stream's own appends take tags too (AppendOpts.Tags); every read
// returns a tagged event's position and tags.
func Example_streamTags() {
	ctx := context.Background()
	s, client := exampleStore()
	defer client.Close()

	guessed := client.Stream("cm", "guessed")
	if _, err := guessed.Append(ctx, echomq.F("word", "cat"), &echomq.AppendOpts{Tags: []string{"player=PLR1", "game=GAM1"}}); err != nil {
		panic(err)
	}
	if _, err := guessed.Append(ctx, echomq.F("word", "dog"), nil); err != nil { // untagged
		panic(err)
	}
	evs, err := guessed.Read(ctx, echomq.All, nil)
	if err != nil {
		panic(err)
	}
	for _, ev := range evs {
		fmt.Println(ev.Position, ev.Tags, ev.Fields)
	}
	found, _, err := s.ReadAll(ctx, dcb.Query{{Tags: []string{"game=GAM1"}}}, 0)
	fmt.Println(len(found), err)
	// Output:
	// 1 [game=GAM1 player=PLR1] [word cat]
	// 0 [] [word dog]
	// 1 <nil>
}
