package projection_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/projection"
)

// The examples run on the embedded engine with a clock they move by hand,
// so the ids they mint, and their output, are the same on every run.

// demoClock is a clock the examples set.
type demoClock struct{ now time.Time }

func (c *demoClock) Now() time.Time { return c.now }

// demo connects to a fresh embedded engine whose clock reads 09:00 UTC.
func demo() (*echomq.Client, *demoClock) {
	clk := &demoClock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: embedded.URL, Notice: io.Discard, Clock: clk.Now, NodeID: new(1)})
	if err != nil {
		panic(err)
	}
	return client, clk
}

// appendAt appends one event per "name=value …" line, minted at the
// clock's time plus the given offset.
func appendAt(s *echomq.Stream, clk *demoClock, at time.Duration, lines ...string) {
	saved := clk.now
	clk.now = clk.now.Add(at)
	defer func() { clk.now = saved }()
	for _, line := range lines {
		var f echomq.Fields
		for kv := range strings.FieldsSeq(line) {
			k, v, _ := strings.Cut(kv, "=")
			f = append(f, k, v)
		}
		if _, err := s.Append(context.Background(), f, nil); err != nil {
			panic(err)
		}
	}
}

// printTable prints a fold result as aligned columns.
func printTable(t projection.Table) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, strings.Join(t.Columns(), "\t"))
	for _, row := range t.Rows() {
		fmt.Fprintln(w, strings.Join(row, "\t"))
	}
	w.Flush()
}

// roomsAndGuesses fills two streams of queue "cm".
func roomsAndGuesses(client *echomq.Client, clk *demoClock) (rooms, guesses *echomq.Stream) {
	rooms, guesses = client.Stream("cm", "room-opened"), client.Stream("cm", "guess-scored")
	appendAt(rooms, clk, 0, "room=lobby", "room=blitz")
	appendAt(guesses, clk, time.Minute, "room=lobby player=ann points=480", "room=blitz player=bob points=120")
	appendAt(rooms, clk, 70*time.Minute, "room=zen")
	appendAt(guesses, clk, 75*time.Minute, "room=lobby player=bob points=600", "room=zen player=ann points=300",
		"room=lobby player=cid points=480")
	clk.now = clk.now.Add(2 * time.Hour)
	return rooms, guesses
}

func ExampleFold() {
	client, clk := demo()
	defer client.Close()
	rooms, _ := roomsAndGuesses(client, clk) // the clock now reads 11:00

	// How many rooms opened in the last hour? Last reads the client's clock.
	lastHour, err := projection.Fold(context.Background(), projection.Last(time.Hour), projection.Count(), rooms)
	if err != nil {
		panic(err)
	}
	all, err := projection.Fold(context.Background(), projection.All, projection.Count(), rooms)
	if err != nil {
		panic(err)
	}
	fmt.Println("last hour:", lastHour.Total, "all time:", all.Total)
	// Output:
	// last hour: 1 all time: 3
}

func ExampleFold_fanIn() {
	client, clk := demo()
	defer client.Close()
	rooms, guesses := roomsAndGuesses(client, clk)

	// One fold over two streams, merged by entry id: a combined feed.
	feed := projection.Projection[[]string]{
		Name: "feed",
		Apply: func(lines []string, ev projection.Event) []string {
			return append(lines, ev.Time().Format("15:04")+" "+ev.Stream+" "+ev.Fields.Value("room"))
		},
	}
	lines, err := projection.Fold(context.Background(), projection.All, feed, rooms, guesses)
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// 09:00 room-opened lobby
	// 09:00 room-opened blitz
	// 09:01 guess-scored lobby
	// 09:01 guess-scored blitz
	// 10:10 room-opened zen
	// 10:15 guess-scored lobby
	// 10:15 guess-scored zen
	// 10:15 guess-scored lobby
}
