package cli

import (
	"context"
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
game-settled of queue "cm" (or --queue), then show what the log gives back:
a time-window read of guess-scored, and a fold of a read (points per player,
guesses per room) that agrees with game-settled.

The story's ids are minted on a clock that ends now (or just after whatever the
streams already hold) and appended with explicit ids, so it spans ten minutes.
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
			err = d.run(cmd.Context())
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
	c       *echomq.Client
	queue   string
	start   time.Time
	shifted bool // the streams held a later story: this one starts after it
	log     []loggedEvent
}

// loggedEvent is an appended event and its stream.
type loggedEvent struct {
	stream string
	ev     echomq.Event
}

func (d *demo) stream(name string) *echomq.Stream { return d.c.Stream(d.queue, name) }

func (d *demo) run(ctx context.Context) error {
	if err := d.pickStart(ctx); err != nil {
		return err
	}
	if err := d.play(ctx); err != nil {
		return err
	}
	window, err := d.stream(streamGuessScored).ReadWindow(ctx, d.start.Add(windowFrom), d.start.Add(windowTo), nil)
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

// pickStart stamps the story so that it ends at the clock's second, or, when
// a stream already holds a later id (an earlier run), just after that: ids
// appended with AppendID must lie above every stream's top.
func (d *demo) pickStart(ctx context.Context) error {
	d.start = d.opts.Clock().Truncate(time.Second).Add(-storySpan).UTC()
	for _, name := range demoStreams {
		info, err := d.stream(name).Info(ctx)
		if err != nil {
			return err
		}
		if info.Exists && info.LastGenerated.Compare(echomq.Floor(d.start)) >= 0 {
			d.start = info.LastGenerated.Time().Truncate(time.Second).Add(time.Second)
			d.shifted = true
		}
	}
	return nil
}

// play mints every id of the story on the story clock and appends the beats.
func (d *demo) play(ctx context.Context) error {
	now := d.start
	m, err := echomq.NewMinter(d.c.NodeID(), func() time.Time { return now })
	if err != nil {
		return err
	}
	cast := &cast{m: m, ids: map[string]echomq.ID{}}
	for _, b := range story {
		now = d.start.Add(b.at)
		f := cast.fields(b.kv)
		id := m.NextID(echomq.BrandEvent)
		if err := d.stream(b.stream).AppendID(ctx, id, f); err != nil {
			return err
		}
		d.log = append(d.log, loggedEvent{stream: b.stream, ev: echomq.Event{ID: id, Entry: id.EntryID(), Fields: f}})
	}
	return nil
}
