package codemojex_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/embedded"
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
