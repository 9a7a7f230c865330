package codemojex_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/partition"
)

// A game from the first join to the settlement, on the embedded engine. The
// scoring worker (Engine.Worker) would score the guess; here Score is called
// by hand, as the worker's handler does.
func ExampleEngine() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	// A seeded source draws the same secret every run.
	e, err := codemojex.New(client, &codemojex.Config{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		panic(err)
	}
	room, err := e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Den", Set: "animals", Prize: 100, Fee: 1})
	if err != nil {
		panic(err)
	}
	alice, _, err := e.SignIn(ctx, codemojex.Identity{Provider: "dev", Subject: "alice"})
	if err != nil {
		panic(err)
	}
	if _, err := e.Grant(ctx, alice.ID, codemojex.Keys, 5); err != nil {
		panic(err)
	}
	joined, err := e.Join(ctx, alice.ID, room.ID)
	if err != nil {
		panic(err)
	}
	game, err := e.Game(ctx, joined.Game)
	if err != nil {
		panic(err)
	}
	receipt, err := e.Submit(ctx, alice.ID, game.ID, game.Keyboard[:6])
	if err != nil {
		panic(err)
	}
	scored, err := e.Score(ctx, receipt.Guess)
	if err != nil {
		panic(err)
	}
	settled, err := e.Close(ctx, game.ID, codemojex.ReasonOperator)
	if err != nil {
		panic(err)
	}
	wallet, err := e.Wallet(ctx, alice.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println("started:", joined.Started, "charged:", receipt.Charged, receipt.Currency)
	fmt.Println("scored:", scored.Status, scored.Points)
	fmt.Println("paid:", settled.Paid, "to", len(settled.Payouts), "winner")
	fmt.Println("wallet:", wallet.Keys, "keys,", wallet.Diamonds, "diamonds")
	// Output:
	// started: true charged: 1 keys
	// scored: scored 80
	// paid: 100 to 1 winner
	// wallet: 4 keys, 100 diamonds
}

// A player joins a game once, decided over the game's events: the join
// appends player-joined on the condition that the player's join and the
// game's close are not in the log, so a second join (or a racing one)
// changes nothing. The game's events, all tagged (those of transactions
// too), read back in order with package dcb.
func ExampleEngine_Join() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	e, err := codemojex.New(client, &codemojex.Config{Queue: "cm-join"})
	if err != nil {
		panic(err)
	}
	room, err := e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Den", Set: "animals", Prize: 100, Fee: 1})
	if err != nil {
		panic(err)
	}
	var players []codemojex.Player
	for _, name := range []string{"alice", "bob"} {
		p, _, err := e.SignIn(ctx, codemojex.Identity{Provider: "dev", Subject: name})
		if err != nil {
			panic(err)
		}
		players = append(players, p)
	}
	first, err := e.Join(ctx, players[0].ID, room.ID)
	if err != nil {
		panic(err)
	}
	for range 2 {
		j, err := e.Join(ctx, players[1].ID, room.ID)
		if err != nil {
			panic(err)
		}
		fmt.Println("bob joined:", j.Game == first.Game, "already:", j.Already)
	}
	if _, err := e.Close(ctx, first.Game, codemojex.ReasonOperator); err != nil {
		panic(err)
	}
	store, err := dcb.New(client, e.Queue())
	if err != nil {
		panic(err)
	}
	evs, _, err := store.ReadAll(ctx, dcb.Query{{Tags: dcb.Tags(codemojex.TagGame, first.Game)}}, 0)
	if err != nil {
		panic(err)
	}
	for _, ev := range evs {
		fmt.Println(ev.Stream, len(ev.Tags), "tags")
	}
	// Output:
	// bob joined: true already: false
	// bob joined: true already: true
	// game-started 3 tags
	// player-joined 3 tags
	// game-closed 2 tags
	// game-settled 2 tags
}

// A game spread over three shards: each shard is a queue whose slot lies
// in its own third of the slot space, a room lives in the shard of its id,
// and the room list fans in every shard. Starting it again with another
// shard count is refused.
func ExampleNewShards() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	s, err := codemojex.NewShards(ctx, client, &codemojex.Config{Queue: "shardex"}, 3)
	if err != nil {
		panic(err)
	}
	for i, e := range s.Engines() {
		fmt.Println(i, e.Queue())
	}
	for _, name := range []string{"Den", "Hive", "Nest", "Burrow"} {
		r, err := s.CreateRoom(ctx, codemojex.RoomSpec{Name: name})
		if err != nil {
			panic(err)
		}
		if _, err := s.Shard(codemojex.RoomShard(r.ID, s.Len())).Room(ctx, r.ID); err != nil {
			panic(err)
		}
	}
	rooms, err := s.Rooms(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(rooms), "rooms")
	_, err = codemojex.NewShards(ctx, client, &codemojex.Config{Queue: "shardex"}, 2)
	fmt.Println(errors.Is(err, partition.ErrMismatch))
	// Output:
	// 0 shardex.emq-p0of3-0
	// 1 shardex.emq-p1of3-0
	// 2 shardex.emq-p2of3-2
	// 4 rooms
	// true
}
