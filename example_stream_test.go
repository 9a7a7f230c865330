package echomq_test

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
)

// exampleClient connects to an embedded engine with a fixed clock and node id
// so the examples print the same ids every run.
func exampleClient(hooks ...echomq.Hook) *echomq.Client {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tick := 0
	clock := func() time.Time { tick++; return start.Add(time.Duration(tick) * time.Second) }
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: embedded.URL, Clock: clock, NodeID: new(1), Notice: io.Discard, Hooks: hooks})
	if err != nil {
		panic(err)
	}
	return c
}

// deadLetterSignal is a DeadLetterHook that signals each move to the dead
// letters on its channel; a hook must not block, so a signal finds the
// channel's buffer free or is dropped.
type deadLetterSignal chan echomq.ID

func (s deadLetterSignal) OnDeadLetter(_ context.Context, d echomq.DeadLetterInfo) {
	if d.Err != nil {
		return // the move failed; the entry stays pending
	}
	select {
	case s <- d.Dead:
	default:
	}
}

func ExampleStream_Append() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	opened := client.Stream("cm", "room-opened")
	id, err := opened.Append(ctx, echomq.F("room", "ROM0001", "set", "animals"), nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(id, id.Brand(), id.Time().Format(time.RFC3339))
	fmt.Println(id.EntryID())
	// Output:
	// EVT0MnGfUTMcz2 EVT 2026-05-01T12:00:01Z
	// 1777636801000-4096
}

func ExampleWindow() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	scored := client.Stream("cm", "guess-scored")
	for _, points := range []string{"120", "480", "600"} {
		if _, err := scored.Append(ctx, echomq.F("player", "PLR1", "points", points), nil); err != nil {
			panic(err)
		}
	}
	// The clock ticks a second per mint: the window holds the 2nd and 3rd.
	t0 := time.Date(2026, 5, 1, 12, 0, 2, 0, time.UTC)
	evs, err := scored.Read(ctx, echomq.Window(t0, t0.Add(time.Second)), nil)
	if err != nil {
		panic(err)
	}
	for _, ev := range evs {
		fmt.Println(ev.Time().Format(time.TimeOnly), ev.Fields.Value("points"))
	}
	// Output:
	// 12:00:02 480
	// 12:00:03 600
}

func ExampleStream_Scan() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	s := client.Stream("cm", "player-joined")
	recs := []echomq.Fields{echomq.F("player", "ann"), echomq.F("player", "bob"), echomq.F("player", "cy")}
	if _, err := s.AppendBatch(ctx, recs, nil); err != nil {
		panic(err)
	}
	// Page two at a time; memory holds one page.
	for ev, err := range s.Scan(ctx, echomq.All, &echomq.ScanOpts{PageSize: 2}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ev.Fields.Value("player"))
	}
	// Output:
	// ann
	// bob
	// cy
}

func ExampleStream_Trim() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	s := client.Stream("cm", "game-settled")
	for i := range 5 {
		if _, err := s.Append(ctx, echomq.F("game", strconv.Itoa(i)), nil); err != nil {
			panic(err)
		}
	}
	trimmed, err := s.Trim(ctx, echomq.MaxLen(2).Exact())
	if err != nil {
		panic(err)
	}
	left, _ := s.Read(ctx, echomq.All, nil)
	fmt.Println(trimmed.Removed, len(left), left[0].Fields.Value("game"))
	// Output: 3 2 3
}

func ExampleStream_Append_reservedField() {
	client := exampleClient()
	defer client.Close()

	_, err := client.Stream("cm", "room-opened").Append(context.Background(), echomq.F("id", "ROM1"), nil)
	fmt.Println(err)
	_, err = client.Stream("cm", "room-opened:archived").Append(context.Background(), nil, nil)
	fmt.Println(err)
	// Output:
	// echomq: append emq:{cm}:stream:room-opened: field "id": reserved for the record id; name the domain's identifier (room, game, player, …)
	// echomq: append : invalid stream name "room-opened:archived": byte ":" at 11 is outside [A-Za-z0-9._-]
}

func ExampleParseID() {
	id, err := echomq.ParseID("EVT000xY9Wvvcd")
	if err != nil {
		panic(err)
	}
	s := id.Snowflake()
	fmt.Println(id.Brand(), s, s.Node(), s.Seq(), id.EntryID(), id.Time().Format(time.RFC3339))
	// Output: EVT 209715201620567 395 2647 1704117200000-1620567 2024-01-01T13:53:20Z
}
