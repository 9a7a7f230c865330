package archive_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/retention"
)

// exampleClient connects to an embedded engine with a clock that ticks a
// second per reading and a fixed node id, so the examples print the same
// ids every run.
func exampleClient() *echomq.Client {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tick := 0
	clock := func() time.Time { tick++; return start.Add(time.Duration(tick) * time.Second) }
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: embedded.URL, Clock: clock, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	return c
}

// Fold the oldest events of a stream into a local archive, keep the three
// newest live, and read everything back as one log.
func ExampleArchiver_Cycle() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()
	dir, _ := os.MkdirTemp("", "archive-example")
	defer os.RemoveAll(dir)

	scored := client.Stream("cm", "guess-scored")
	for _, points := range []string{"120", "480", "600", "90", "300", "720", "15", "510"} {
		if _, err := scored.Append(ctx, echomq.F("player", "PLR1", "points", points), nil); err != nil {
			panic(err)
		}
	}
	store, err := fsstore.New(dir)
	if err != nil {
		panic(err)
	}
	arch, err := archive.New(client, store, nil)
	if err != nil {
		panic(err)
	}
	res, err := arch.Cycle(ctx, archive.Policy{Queue: "cm", Stream: "guess-scored", Keep: retention.MaxLen(3)})
	if err != nil {
		panic(err)
	}
	fmt.Println("folded", res.Folded, "trimmed", res.Trimmed, "W", res.Watermark)

	evs, err := arch.Reader("cm", "guess-scored").Read(ctx, echomq.All, nil)
	if err != nil {
		panic(err)
	}
	for _, ev := range evs {
		fmt.Println(ev.ID, ev.Fields.Value("points"), ev.Archived)
	}
	// Output:
	// folded 5 trimmed 5 W EVT0MnGfmmm7H6
	// EVT0MnGfUTMcz2 120 true
	// EVT0MnGfZ3DV3Y 480 true
	// EVT0MnGfdd4N84 600 true
	// EVT0MnGfiCvFCa 90 true
	// EVT0MnGfmmm7H6 300 true
	// EVT0MnGfrMczLc 720 false
	// EVT0MnGfvwTrQ8 15 false
	// EVT0MnGg0WKjUe 510 false
}

// Read a time window across the seam between archive and live stream.
func ExampleReader_Read_window() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()
	dir, _ := os.MkdirTemp("", "archive-example")
	defer os.RemoveAll(dir)

	opened := client.Stream("cm", "room-opened")
	for _, room := range []string{"ROM1", "ROM2", "ROM3", "ROM4", "ROM5", "ROM6"} {
		if _, err := opened.Append(ctx, echomq.F("room", room), nil); err != nil {
			panic(err)
		}
	}
	store, _ := fsstore.New(dir)
	arch, _ := archive.New(client, store, nil)
	if _, err := arch.Cycle(ctx, archive.Policy{Queue: "cm", Stream: "room-opened", Keep: retention.MaxLen(2)}); err != nil {
		panic(err)
	}
	// One mint a second from 12:00:01: the window 12:00:03–12:00:05
	// holds ROM3 and ROM4 (archived) and ROM5 (live).
	t0 := time.Date(2026, 5, 1, 12, 0, 3, 0, time.UTC)
	evs, err := arch.Reader("cm", "room-opened").Read(ctx, echomq.Window(t0, t0.Add(2*time.Second)), nil)
	if err != nil {
		panic(err)
	}
	for _, ev := range evs {
		fmt.Println(ev.Time().Format(time.TimeOnly), ev.Fields.Value("room"), ev.Archived)
	}
	// Output:
	// 12:00:03 ROM3 true
	// 12:00:04 ROM4 true
	// 12:00:05 ROM5 false
}

// Status shows W, its instant, the archive's size and the live length.
func ExampleArchiver_Status() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()
	dir, _ := os.MkdirTemp("", "archive-example")
	defer os.RemoveAll(dir)

	s := client.Stream("cm", "game-settled")
	for range 10 {
		if _, err := s.Append(ctx, echomq.F("game", "GAM1"), nil); err != nil {
			panic(err)
		}
	}
	store, _ := fsstore.New(dir)
	arch, _ := archive.New(client, store, nil)
	if _, err := arch.Cycle(ctx, archive.Policy{Queue: "cm", Stream: "game-settled", Keep: retention.MaxLen(4)}); err != nil {
		panic(err)
	}
	st, err := arch.Status(ctx, "cm", "game-settled")
	if err != nil {
		panic(err)
	}
	fmt.Println("W", st.Watermark, st.WatermarkTime().Format(time.RFC3339))
	fmt.Println("segments", st.Segments, "entries", st.Entries, "live", st.Live.Length)
	// Output:
	// W EVT0MnGfrMczLc 2026-05-01T12:00:06Z
	// segments 1 entries 6 live 4
}

func ExampleSetWatermark() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	s := client.Stream("cm", "guess-scored")
	_, ok, _ := archive.Watermark(ctx, s)
	fmt.Println("cached:", ok)
	w, _ := s.Append(ctx, echomq.F("points", "100"), nil)
	_ = archive.SetWatermark(ctx, s, w)
	got, ok, _ := archive.Watermark(ctx, s)
	fmt.Println("cached:", ok, got == w)
	// Output:
	// cached: false
	// cached: true true
}
