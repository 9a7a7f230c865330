package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// setEventDoc is one JSON line of follow: the event and its stream.
type setEventDoc struct {
	Stream string `json:"stream"`
	eventDoc
}

func (a *app) followCommand() *cobra.Command {
	var (
		prefix, from string
		head         bool
		maxEvents    int
	)
	cmd := &cobra.Command{
		Use:   "follow [STREAM...] [--prefix P]",
		Short: "Follow several streams as one log, in entry-id order",
		Long: `Print the events of the named STREAMs, or of every stream of the queue whose name
starts with --prefix (streams created while following included), as one log in
entry-id order across the streams, with a STREAM column. Without --head or
--from it prints what is appended from now on; --head starts every stream at its
oldest entry; --from resumes from a checkpoint "stream=entry,…" (streams not in
it start per --head). --max N stops after N events; otherwise it follows until
interrupted. --json writes JSON Lines.`,
		Example: `  emq -q cm follow room-opened game-started player-joined guess-scored game-settled --head
  emq -q cm follow --prefix game- --max 100`,
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !cmd.Flags().Changed("prefix") {
				return usagef("follow: name the streams or give --prefix")
			}
			if len(args) > 0 && cmd.Flags().Changed("prefix") {
				return usagef("follow: name the streams or give --prefix, not both")
			}
			if maxEvents < 0 {
				return usagef("invalid --max %d: must not be negative", maxEvents)
			}
			cp, err := echomq.ParseCheckpoint(from)
			if err != nil {
				return usagef("invalid --from %q: %v", from, oneLine(err))
			}
			var set *echomq.StreamSet
			c := new(echomq.Client)
			if len(args) > 0 {
				set = c.Streams(a.queue, args...)
			} else {
				set = c.StreamsPrefix(a.queue, prefix)
			}
			if err := set.Err(); err != nil {
				return err
			}
			opts := &echomq.SetFollowOpts{From: cp, Start: echomq.StartNew, Logger: a.followLogger()}
			if head {
				opts.Start = echomq.StartHead
			}
			client, err := a.connect(cmd.Context(), a.stderr)
			if err != nil {
				return err
			}
			defer client.Close()
			if len(args) > 0 {
				set = client.Streams(a.queue, args...)
			} else {
				set = client.StreamsPrefix(a.queue, prefix)
			}
			return a.followSet(cmd.Context(), set, opts, maxEvents)
		}),
	}
	cmd.Flags().StringVar(&prefix, "prefix", "", "follow every stream whose name starts with this")
	cmd.Flags().BoolVar(&head, "head", false, "start every stream at its oldest entry")
	cmd.Flags().StringVar(&from, "from", "", "resume from a checkpoint stream=entry,… (as printed by --json's last line)")
	cmd.Flags().IntVar(&maxEvents, "max", 0, "stop after this many events (0: follow until interrupted)")
	return cmd
}

func (a *app) followSet(ctx context.Context, set *echomq.StreamSet, opts *echomq.SetFollowOpts, maxEvents int) error {
	f, err := set.Follower(opts)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !a.json {
		if _, err := fmt.Fprintf(a.stdout, "%-16s  "+eventRowFormat, "STREAM", "ID", "ENTRY", "TIME", "FIELDS"); err != nil {
			return err
		}
	}
	n := 0
	for ev, err := range f.Follow(ctx) {
		if errors.Is(err, echomq.ErrUnavailable) {
			continue // the follower retries by itself and logs the outage and its end
		}
		if err != nil {
			return err
		}
		if a.json {
			err = writeJSON(a.stdout, setEventDoc{Stream: ev.Stream, eventDoc: toEventDoc(ev.Event)})
		} else {
			if _, err = fmt.Fprintf(a.stdout, "%-16s  ", ev.Stream); err == nil {
				err = writeEventRow(a.stdout, ev.Event)
			}
		}
		if err != nil {
			return err
		}
		if n++; maxEvents > 0 && n == maxEvents {
			break
		}
	}
	if a.json {
		return writeJSON(a.stdout, map[string]string{"checkpoint": f.Checkpoint().String()})
	}
	_, err = fmt.Fprintf(a.stdout, "checkpoint %s\n", f.Checkpoint())
	return err
}
