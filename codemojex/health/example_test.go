package health_test

import (
	"context"
	"fmt"
	"io"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/health"
	"github.com/echomq/echomq/embedded"
)

// Read the game's health: nobody has played yet.
func ExampleMonitor_Read() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	e, err := codemojex.New(client, &codemojex.Config{Queue: "health-example"})
	if err != nil {
		panic(err)
	}
	m, err := health.New(e, &health.Config{LiveFeeds: func() int { return 0 }})
	if err != nil {
		panic(err)
	}
	s, err := m.Read(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("players active:", s.PlayersActive, "scored last minute:", s.ScoredLastMinute, "backlog:", s.Backlog, "dead:", s.Dead, "exact:", s.Exact)
	// Output: players active: 0 scored last minute: 0 backlog: 0 dead: 0 exact: true
}
