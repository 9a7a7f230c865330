package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

func (a *app) demoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Play a small emoji-game story into five streams, then read a window and fold it",
		Long: `Play a small codemojex story (two rooms, two games, three players) as domain
events on the streams room-opened, game-started, player-joined, guess-scored and
game-settled of its own queue "emq-demo" (or --queue), then show what the log gives back:
a time-window read of guess-scored, and a fold of a read (points per player,
guesses per room) that agrees with game-settled.

The story's ids are minted on a clock that ends now (by the engine's clock when
the local one runs ahead) and appended with explicit ids, so it spans the last
ten minutes. It never appends above the engine's clock: when the queue already
holds a story of the last ten minutes, a second run takes the next free
queue ("emq-demo-2", …) and says so; a queue given with --queue is refused
instead, naming when it can take a story again.
It runs on the embedded engine unless --url or EMQ_URL names a server.`,
		Args: argsRange(0, 0),
		RunE: body(func(cmd *cobra.Command, _ []string) error {
			queue := demoQueue
			if cmd.Flags().Changed("queue") {
				queue = a.queue
			}
			if err := new(echomq.Client).Stream(queue, streamRoomOpened).Err(); err != nil {
				return err
			}
			c, err := a.connect(cmd.Context(), a.stderr)
			if err != nil {
				return err
			}
			d := &demo{app: a, c: c, queue: queue}
			err = d.run(cmd.Context(), cmd.Flags().Changed("queue"))
			if cerr := c.Close(); err == nil {
				err = cerr
			}
			return err
		}),
	}
}

// demo is one run of the story.
type demo struct {
	*app
	c     *echomq.Client
	queue string
	moved string // the queue the demo found taken, when it moved to the next one
	start time.Time
	log   []loggedEvent
}

// loggedEvent is an appended event and its stream.
type loggedEvent struct {
	stream string
	ev     echomq.Event
}

func (d *demo) stream(name string) *echomq.Stream { return d.c.Stream(d.queue, name) }

func (d *demo) run(ctx context.Context, explicit bool) error {
	if err := d.pickStart(ctx, explicit); err != nil {
		return err
	}
	if err := d.play(ctx); err != nil {
		return err
	}
	window, err := d.stream(streamGuessScored).Read(ctx, echomq.Window(d.start.Add(windowFrom), d.start.Add(windowTo)), nil)
	if err != nil {
		return err
	}
	f, err := d.fold(ctx)
	if err != nil {
		return err
	}
	if d.json {
		return d.writeJSON(window, f)
	}
	return d.writeText(window, f)
}

// pickStart stamps the story so that it ends at the clock's second (never
// after the engine's clock). Ids appended with AppendID must lie above
// every stream's top, and the story must not run into the future, so a
// queue that already holds a story of the last ten minutes cannot take
// another: the demo's own queue then moves on to the next free one
// ("emq-demo-2", …); a queue given with --queue is refused, naming when it
// can take one again.
func (d *demo) pickStart(ctx context.Context, explicit bool) error {
	end := d.opts.Clock()
	engine, err := d.c.EngineTime(ctx)
	if err != nil {
		return err
	}
	if end.After(engine) {
		end = engine
	}
	d.start = end.Truncate(time.Second).Add(-storySpan).UTC()
	base := d.queue
	for n := 2; ; n++ {
		top, err := d.storyTop(ctx)
		if err != nil || top == (echomq.EntryID{}) || top.Compare(echomq.Floor(d.start)) < 0 {
			return err
		}
		if explicit || n > maxDemoQueues {
			last := top.Time()
			return fmt.Errorf("demo: queue %q holds a story whose last event is at %s, and a story is stamped in the ten minutes before now, above every event already there: give another --queue, or run it again after %s",
				d.queue, fmtTime(last), fmtTime(last.Add(storySpan).Truncate(time.Second).Add(time.Second)))
		}
		d.moved, d.queue = base, fmt.Sprintf("%s-%d", base, n)
	}
}

// maxDemoQueues bounds the queues the demo tries ("emq-demo" … "emq-demo-20").
const maxDemoQueues = 20

// storyTop returns the newest entry id over the demo's streams in d.queue
// (zero when none exists).
func (d *demo) storyTop(ctx context.Context) (echomq.EntryID, error) {
	var top echomq.EntryID
	for _, name := range demoStreams {
		info, err := d.stream(name).Info(ctx)
		if err != nil {
			return top, err
		}
		if info.Exists && info.LastGenerated.Compare(top) > 0 {
			top = info.LastGenerated
		}
	}
	return top, nil
}

// play mints every id of the story on the story clock and appends the beats.
func (d *demo) play(ctx context.Context) error {
	now := d.start
	qm, err := d.c.Minter(ctx, d.queue)
	if err != nil {
		return err
	}
	m, err := echomq.NewMinter(qm.Node(), func() time.Time { return now })
	if err != nil {
		return err
	}
	cast := &cast{m: m, ids: map[string]echomq.ID{}}
	for _, b := range story {
		now = d.start.Add(b.at)
		f := cast.fields(b.kv, d.start)
		id := m.NextID(echomq.BrandEvent)
		if err := d.stream(b.stream).AppendID(ctx, id, f); err != nil {
			return err
		}
		d.log = append(d.log, loggedEvent{stream: b.stream, ev: echomq.Event{ID: id, Entry: id.EntryID(), Fields: f}})
	}
	return nil
}
