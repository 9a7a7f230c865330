package projection_test

import (
	"context"
	"fmt"
	"time"

	"github.com/echomq/echomq/projection"
)

func ExampleCountBy() {
	client, clk := demo()
	defer client.Close()
	_, guesses := roomsAndGuesses(client, clk)

	perRoom, err := projection.Fold(context.Background(), projection.All, projection.CountBy("room"), guesses)
	if err != nil {
		panic(err)
	}
	fmt.Println("guesses:", perRoom.Total, "in lobby:", perRoom.Per["lobby"])
	printTable(perRoom)
	// Output:
	// guesses: 5 in lobby: 3
	// room   count
	// lobby  3
	// blitz  1
	// zen    1
}

func ExampleSum() {
	client, clk := demo()
	defer client.Close()
	_, guesses := roomsAndGuesses(client, clk)

	sum, err := projection.Fold(context.Background(), projection.All, projection.Sum("points"), guesses)
	if err != nil {
		panic(err)
	}
	avg, err := projection.Fold(context.Background(), projection.All, projection.Avg("points"), guesses)
	if err != nil {
		panic(err)
	}
	fmt.Println("points:", sum.Group("").Sum, "average:", avg.Group("").Avg())
	// Output:
	// points: 1980 average: 396
}

func ExampleStats() {
	client, clk := demo()
	defer client.Close()
	_, guesses := roomsAndGuesses(client, clk)

	perRoom, err := projection.Fold(context.Background(), projection.All, projection.Stats("points", "room"), guesses)
	if err != nil {
		panic(err)
	}
	printTable(perRoom)
	// Output:
	// room   count  sum   min  max  avg
	// blitz  1      120   120  120  120
	// lobby  3      1560  480  600  520
	// zen    1      300   300  300  300
}

func ExampleCountPer() {
	client, clk := demo()
	defer client.Close()
	rooms, guesses := roomsAndGuesses(client, clk)

	// How many rooms opened, and guesses scored, each hour.
	perHour, err := projection.Fold(context.Background(), projection.All, projection.CountPer(time.Hour), rooms, guesses)
	if err != nil {
		panic(err)
	}
	printTable(perHour)
	// Output:
	// start                 count
	// 2026-03-01T09:00:00Z  4
	// 2026-03-01T10:00:00Z  4
}

func ExampleLatest() {
	client, clk := demo()
	defer client.Close()
	_, guesses := roomsAndGuesses(client, clk)

	// Each player's latest guess: a changelog view.
	latest, err := projection.Fold(context.Background(), projection.All, projection.Latest("player"), guesses)
	if err != nil {
		panic(err)
	}
	for _, row := range latest.Rows() {
		fmt.Println(row[0], row[2], row[3])
	}
	// Output:
	// ann 2026-03-01T10:15:00.000Z room=zen player=ann points=300
	// bob 2026-03-01T10:15:00.000Z room=lobby player=bob points=600
	// cid 2026-03-01T10:15:00.000Z room=lobby player=cid points=480
}

func ExampleTop() {
	client, clk := demo()
	defer client.Close()
	_, guesses := roomsAndGuesses(client, clk)

	best, err := projection.Fold(context.Background(), projection.All, projection.Top("points", 3), guesses)
	if err != nil {
		panic(err)
	}
	for _, e := range best.Events {
		fmt.Println(e.Value, e.Entry.Time().Format("15:04"))
	}
	// Output:
	// 600 10:15
	// 480 09:01
	// 480 10:15
}

func ExampleTopBy() {
	client, clk := demo()
	defer client.Close()
	_, guesses := roomsAndGuesses(client, clk)

	// The leaderboard: players by total points.
	board, err := projection.Fold(context.Background(), projection.All, projection.TopBy("points", "player", 2), guesses)
	if err != nil {
		panic(err)
	}
	printTable(board)
	// Output:
	// rank  player  points
	// 1     ann     780
	// 2     bob     720
}

func ExampleDistinct() {
	client, clk := demo()
	defer client.Close()
	_, guesses := roomsAndGuesses(client, clk)

	players, err := projection.Fold(context.Background(), projection.Since(clk.Now().Add(-90*time.Minute)),
		projection.Distinct("player"), guesses)
	if err != nil {
		panic(err)
	}
	fmt.Println(players.Len(), players.Sorted())
	// Output:
	// 3 [ann bob cid]
}

func ExampleParseSpec() {
	client, clk := demo()
	defer client.Close()
	_, guesses := roomsAndGuesses(client, clk)

	// A fold chosen at run time, as a command line would.
	spec, err := projection.ParseSpec("sum,field=points,by=room")
	if err != nil {
		panic(err)
	}
	p, err := spec.Projection()
	if err != nil {
		panic(err)
	}
	w, err := projection.ParseWindow("last:90m")
	if err != nil {
		panic(err)
	}
	result, err := projection.Fold(context.Background(), w, p, guesses)
	if err != nil {
		panic(err)
	}
	printTable(result)
	// Output:
	// room   sum
	// lobby  1080
	// zen    300
}
