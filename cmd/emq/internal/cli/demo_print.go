package cli

import (
	"fmt"
	"time"

	"github.com/echomq/echomq"
)

// demoDoc is the JSON result of the demo.
type demoDoc struct {
	Queue    string        `json:"queue"`
	Embedded bool          `json:"embedded"`
	Start    string        `json:"start"`
	End      string        `json:"end"`
	Appended []loggedDoc   `json:"appended"`
	Window   demoWindowDoc `json:"window"`
	Players  []playerTally `json:"players"`
	Rooms    []roomTally   `json:"rooms"`
	Settled  []settlement  `json:"settled"`
}

type loggedDoc struct {
	Stream string `json:"stream"`
	eventDoc
}

type demoWindowDoc struct {
	Stream string     `json:"stream"`
	From   string     `json:"from"`
	To     string     `json:"to"`
	Events []eventDoc `json:"events"`
}

func (d *demo) writeJSON(window []echomq.Event, f folded) error {
	doc := demoDoc{
		Queue: d.queue, Embedded: d.c.Engine().Name == "embedded", Start: fmtTime(d.start), End: fmtTime(d.start.Add(storySpan)),
		Window: demoWindowDoc{
			Stream: streamGuessScored, From: fmtTime(d.start.Add(windowFrom)),
			To: fmtTime(d.start.Add(windowTo)), Events: toEventDocs(window),
		},
		Players: f.players, Rooms: f.rooms, Settled: f.settled,
	}
	for _, l := range d.log {
		doc.Appended = append(doc.Appended, loggedDoc{Stream: l.stream, eventDoc: toEventDoc(l.ev)})
	}
	return writeJSON(d.stdout, doc)
}

func (d *demo) writeText(window []echomq.Event, f folded) error {
	w := d.stdout
	fmt.Fprintf(w, "emq demo: a codemojex story in queue %q: two rooms, two games, three players.\n", d.queue)
	if d.moved != "" {
		fmt.Fprintf(w, "(queue %q holds the story of an earlier run of the last ten minutes.)\n", d.moved)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, `1. Append. Each domain event goes to the stream named for its type, and the
   first append creates the stream. Ids are minted on a story clock and
   appended as given (AppendID), so the story spans ten minutes of mint
   instants; in every stream, stream order is mint order.
`)
	fmt.Fprintln(w)
	tw := table(w)
	fmt.Fprintln(tw, "AT\tSTREAM\tID\tFIELDS")
	for _, l := range d.log {
		at := l.ev.Time().Sub(d.start)
		fmt.Fprintf(tw, "+%02d:%02d\t%s\t%s\t%s\n", int(at/time.Minute), int(at%time.Minute/time.Second), l.stream, l.ev.ID, fieldsText(l.ev.Fields))
	}
	tw.Flush()

	t0, t1 := d.start.Add(windowFrom), d.start.Add(windowTo)
	fmt.Fprintf(w, `
2. Time travel. A time window is an id range: the guesses scored from 4 to 7
   minutes in, [%s, %s], are the entries
   [%s, %s] of guess-scored, both ends included:
   %d of its %d events, read without scanning the rest.

`, fmtTime(t0), fmtTime(t1), echomq.Floor(t0), echomq.Ceil(t1), len(window), countStream(d.log, streamGuessScored))
	_ = writeEvents(w, window) // a demo to a terminal; the next write fails alike

	fmt.Fprint(w, `
3. Fold. One read of guess-scored, folded in one pass into points per player
   (names from game-started and player-joined) ...

`)
	tw = table(w)
	fmt.Fprintln(tw, "PLAYER\tNAME\tGUESSES\tBEST\tTOTAL")
	for _, p := range f.players {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\n", p.Player, p.Name, p.Guesses, p.Best, p.Total)
	}
	tw.Flush()
	fmt.Fprint(w, "\n   ... and games and guesses per room (names from room-opened):\n\n")
	tw = table(w)
	fmt.Fprintln(tw, "ROOM\tNAME\tGAMES\tGUESSES")
	for _, r := range f.rooms {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", r.Room, r.Name, r.Games, r.Guesses)
	}
	tw.Flush()

	fmt.Fprint(w, `
4. Check. game-settled recorded each game's winner; the fold, recomputed from
   the log alone, finds the same best score in each game.

`)
	tw = table(w)
	fmt.Fprintln(tw, "GAME\tROOM\tWINNER\tNAME\tPOINTS\tAGREES")
	for _, s := range f.settled {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.Game, s.Room, s.Winner, s.Name, s.Points, yesNo(s.Agrees))
	}
	tw.Flush()

	if d.c.Engine().Name == "embedded" {
		fmt.Fprintf(w, "\nThe embedded engine stops when emq exits, and the streams with it; give --url\n(or EMQ_URL) to keep them and read them again with: emq read -q %s guess-scored\n", d.queue)
		return nil
	}
	_, err := fmt.Fprintf(w, "\nRead them again with: emq read -q %s guess-scored\n", d.queue)
	return err
}

func countStream(log []loggedEvent, stream string) int {
	n := 0
	for _, l := range log {
		if l.stream == stream {
			n++
		}
	}
	return n
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}
