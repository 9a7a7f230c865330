package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// deadDoc is the JSON form of a dead letter.
type deadDoc struct {
	ID          string        `json:"id"`
	Entry       string        `json:"entry"`
	Time        string        `json:"time"`
	Origin      *string       `json:"origin"` // null when the original had no EVT id
	OriginEntry string        `json:"origin_entry"`
	Stream      string        `json:"stream"`
	Group       string        `json:"group"`
	Consumer    string        `json:"consumer"`
	Attempts    int64         `json:"attempts"`
	Error       string        `json:"error"`
	Payload     orderedFields `json:"payload"`
}

func toDeadDoc(dl echomq.DeadLetter) deadDoc {
	d := deadDoc{
		ID: dl.ID.String(), Entry: dl.Entry.String(), Time: fmtTime(dl.Entry.Time()),
		OriginEntry: dl.OriginEntry.String(), Stream: dl.Stream, Group: dl.Group, Consumer: dl.Consumer,
		Attempts: dl.Attempts, Error: dl.Error, Payload: orderedFields(dl.Payload),
	}
	if !dl.Origin.IsZero() {
		o := dl.Origin.String()
		d.Origin = &o
	}
	return d
}

func (d deadDoc) origin() string {
	if d.Origin != nil {
		return *d.Origin
	}
	return d.OriginEntry
}

// deadListDoc is the JSON result of dead list.
type deadListDoc struct {
	Queue  string    `json:"queue"`
	Stream string    `json:"stream"`
	Key    string    `json:"key"`
	Count  int       `json:"count"`
	Dead   []deadDoc `json:"dead"`
}

// deadShowDoc is the JSON result of dead show.
type deadShowDoc struct {
	Queue string `json:"queue"`
	deadDoc
}

// replayDoc is the JSON result of dead replay.
type replayDoc struct {
	Queue    string       `json:"queue"`
	Stream   string       `json:"stream"`
	Replayed []replayPair `json:"replayed"`
}

type replayPair struct {
	Dead string `json:"dead"` // the dead letter, now deleted
	ID   string `json:"id"`   // the new event appended to the stream
}

// purgeDoc is the JSON result of dead purge.
type purgeDoc struct {
	Queue  string `json:"queue"`
	Stream string `json:"stream"`
	Purged int64  `json:"purged"`
}

func (a *app) deadCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dead",
		Short: "List, show, replay and purge the dead letters of a stream",
		Long: `An entry a consumer group failed to handle --max-deliveries times is moved to the
stream's dead letters (key emq:{queue}:stream:<name>:dead) with its origin id,
group, consumer, delivery count, last error and payload. Dead letters have EVT
ids of their own. "replay" appends a dead letter's payload to its stream as a
new event (a new id; the groups deliver it like any other) and deletes the
dead letter, in one atomic step.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.deadListCommand(), a.deadShowCommand(), a.deadReplayCommand(), a.deadPurgeCommand())
	return cmd
}

// withDead connects and runs fn on the stream's dead-letter handle.
func (a *app) withDead(ctx context.Context, stream string, fn func(*echomq.DeadLetters) error) error {
	return a.withStream(ctx, stream, func(s *echomq.Stream) error { return fn(s.DeadLetters()) })
}

// deadNotFound turns the library's "no such dead letter" into a not-found
// error (exit 3) naming it; other errors pass.
func (a *app) deadNotFound(err error, stream string, id echomq.ID) error {
	if errors.Is(err, echomq.ErrDeadLetterNotFound) {
		return &notFoundError{what: fmt.Sprintf("dead letter %s of stream %q in queue %q", id, stream, a.queue)}
	}
	return err
}

// parseDeadIDs parses EVT ids; it returns an error (exit 2) for the first
// bad one.
func parseDeadIDs(args []string) ([]echomq.ID, error) {
	ids := make([]echomq.ID, len(args))
	for i, s := range args {
		id, err := echomq.ParseEventID(s)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

func (a *app) deadListCommand() *cobra.Command {
	var o readOpts
	var from, to string
	cmd := &cobra.Command{
		Use:   "list STREAM",
		Short: "List a stream's dead letters, oldest first",
		Long: `List the dead letters of STREAM, oldest first: each one's own id and time, the
origin event's id, the group that gave up, its delivery count, the last error
and the payload. --from/--to bound the dead letters' own ids or times (as in
read). A stream without dead letters lists none.`,
		Example: "  emq dead list orders\n  emq dead list orders --from -1h --json | jq '.dead[].error'",
		Args:    argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			if err := checkCount("count", o.count); err != nil {
				return err
			}
			now := a.opts.Clock()
			lo, err := parseBound(from, true, now)
			if err != nil {
				return err
			}
			hi, err := parseBound(to, false, now)
			if err != nil {
				return err
			}
			r := echomq.Span(lo, hi)
			if err := r.Validate(); err != nil {
				return err
			}
			return a.withDead(cmd.Context(), args[0], func(d *echomq.DeadLetters) error {
				dls, err := d.List(cmd.Context(), r, &echomq.ReadOpts{Count: o.count, Reverse: o.reverse})
				if err != nil {
					return err
				}
				docs := make([]deadDoc, len(dls))
				for i, dl := range dls {
					docs[i] = toDeadDoc(dl)
				}
				if a.json {
					return writeJSON(a.stdout, deadListDoc{Queue: a.queue, Stream: args[0], Key: d.Key(), Count: len(docs), Dead: docs})
				}
				tw := table(a.stdout)
				fmt.Fprintln(tw, "ID\tTIME\tORIGIN\tGROUP\tATTEMPTS\tERROR\tPAYLOAD")
				for i, doc := range docs {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", doc.ID, doc.Time, doc.origin(), tableCell(doc.Group),
						doc.Attempts, strconv.Quote(doc.Error), fieldsText(dls[i].Payload))
				}
				return tw.Flush()
			})
		}),
	}
	o.register(cmd)
	cmd.Flags().StringVar(&from, "from", "-", "lower bound: -, entry id, EVT id or time; ( excludes")
	cmd.Flags().StringVar(&to, "to", "+", "upper bound: +, entry id, EVT id or time; ( excludes")
	return cmd
}

func (a *app) deadShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "show STREAM ID",
		Short:   "Show one dead letter with its payload",
		Long:    "Show the dead letter ID (its own EVT id, as dead list prints it) of STREAM.\nA dead letter that does not exist (never written, replayed or purged) exits 3.",
		Example: "  emq dead show orders EVT0DqulWYZktk",
		Args:    argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			ids, err := parseDeadIDs(args[1:])
			if err != nil {
				return err
			}
			return a.withDead(cmd.Context(), args[0], func(d *echomq.DeadLetters) error {
				dl, err := d.Get(cmd.Context(), ids[0])
				if err != nil {
					return a.deadNotFound(err, args[0], ids[0])
				}
				doc := toDeadDoc(dl)
				if a.json {
					return writeJSON(a.stdout, deadShowDoc{Queue: a.queue, deadDoc: doc})
				}
				tw := table(a.stdout)
				fmt.Fprintf(tw, "id\t%s\n", doc.ID)
				fmt.Fprintf(tw, "entry\t%s\n", doc.Entry)
				fmt.Fprintf(tw, "time\t%s\n", doc.Time)
				fmt.Fprintf(tw, "origin\t%s  %s  %s\n", doc.origin(), doc.OriginEntry, fmtTime(dl.OriginEntry.Time()))
				fmt.Fprintf(tw, "stream\t%s\n", tableCell(doc.Stream))
				fmt.Fprintf(tw, "group\t%s\n", tableCell(doc.Group))
				fmt.Fprintf(tw, "consumer\t%s\n", tableCell(doc.Consumer))
				fmt.Fprintf(tw, "attempts\t%d\n", doc.Attempts)
				fmt.Fprintf(tw, "error\t%s\n", strconv.Quote(doc.Error))
				fmt.Fprintf(tw, "payload\t%s\n", fieldsText(dl.Payload))
				return tw.Flush()
			})
		}),
	}
}
