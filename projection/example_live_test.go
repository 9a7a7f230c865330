package projection_test

import (
	"context"
	"fmt"

	"github.com/echomq/echomq/projection"
)

func ExampleLive() {
	client, clk := demo()
	defer client.Close()
	ctx := context.Background()
	rooms, guesses := roomsAndGuesses(client, clk)

	// A read model kept incrementally, its snapshots in
	// "emq:{cm}:projection:per-room".
	store := projection.EngineStore(client, "cm", "per-room")
	live, err := projection.NewLive(projection.CountBy("room"), &projection.LiveConfig{Store: store}, rooms, guesses)
	if err != nil {
		panic(err)
	}
	n, err := live.CatchUp(ctx) // folds the whole log once, then saves
	if err != nil {
		panic(err)
	}
	fmt.Println("folded", n)

	appendAt(guesses, clk, 0, "room=zen player=bob points=60")

	// Another process resumes from the snapshot and folds only what is new.
	again, err := projection.NewLive(projection.CountBy("room"), &projection.LiveConfig{Store: store}, rooms, guesses)
	if err != nil {
		panic(err)
	}
	start, err := again.Open(ctx)
	if err != nil {
		panic(err)
	}
	n, err = again.CatchUp(ctx)
	if err != nil {
		panic(err)
	}
	state, _, err := again.State(ctx)
	if err != nil {
		panic(err)
	}
	// (Run(ctx) would go on to follow both streams live until ctx ends.)
	fmt.Println(start, "folded", n, "zen:", state.Per["zen"])
	// Output:
	// folded 8
	// resumed folded 1 zen: 3
}

func ExampleCached() {
	client, clk := demo()
	defer client.Close()
	ctx := context.Background()
	_, guesses := roomsAndGuesses(client, clk)

	board, err := projection.NewCached(projection.All, projection.TopBy("points", "player", 3), guesses)
	if err != nil {
		panic(err)
	}
	for range 3 {
		if _, err := board.Get(ctx); err != nil {
			panic(err)
		}
	}
	appendAt(guesses, clk, 0, "room=zen player=cid points=600")
	top, err := board.Get(ctx)
	if err != nil {
		panic(err)
	}
	st := board.Stats()
	fmt.Printf("reads %d, from memory %d, full folds %d, events folded %d\n", st.Reads, st.Hits, st.Refolds, st.Applied)
	printTable(top)
	// Output:
	// reads 4, from memory 2, full folds 1, events folded 6
	// rank  player  points
	// 1     cid     1080
	// 2     ann     780
	// 3     bob     720
}
