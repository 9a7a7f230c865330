// Command tour is the README's tour of the EchoMQ API. It runs on the
// engine named by EMQ_URL, or on the embedded engine when it is unset.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
)

func main() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.Or(os.Getenv("EMQ_URL"))}) // unset: the embedded engine
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	// One stream per event type: the name is the channel.
	scored := client.Stream("tour", "guess-scored") // its own queue "tour"; bad names fail here, before any I/O
	start := time.Now()
	var last echomq.ID
	for _, p := range []string{"120", "480", "600"} {
		last, err = scored.Append(ctx, echomq.F("game", "GAM1", "player", "PLR1", "points", p), nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("receipt", last, "minted at", last.Time().Format(time.RFC3339Nano))
	}

	// Time travel: a time window is an id range.
	recent, err := scored.Read(ctx, echomq.Window(start, time.Now()), nil)
	if err != nil {
		log.Fatal(err)
	}
	total := 0
	for _, ev := range recent {
		var p int
		if _, err := fmt.Sscan(ev.Fields.Value("points"), &p); err != nil {
			log.Fatal(err)
		}
		total += p
	}
	fmt.Println(len(recent), "guesses in the window,", total, "points")

	// Page through any range with bounded memory.
	for ev, err := range scored.Scan(ctx, echomq.All, &echomq.ScanOpts{PageSize: 500}) {
		if err != nil {
			log.Fatal(err)
		}
		_ = ev
	}

	// Bad input gets a typed error and writes nothing.
	_, err = scored.Append(ctx, echomq.F("id", "mine"), nil)
	fmt.Println(errors.Is(err, echomq.ErrReservedField))

	// Follow the tail from after the last receipt, until the context ends.
	fctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	go func() { _, _ = scored.Append(ctx, echomq.F("game", "GAM1", "player", "PLR2", "points", "560"), nil) }()
	for ev, err := range scored.Follow(fctx, &echomq.FollowOpts{From: echomq.After(last)}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("live:", ev.Fields.Value("player"), ev.Fields.Value("points"))
		cancel()
	}

	// Keep the newest 1000 entries.
	if _, err := scored.Trim(ctx, echomq.MaxLen(1000)); err != nil {
		log.Fatal(err)
	}
}
