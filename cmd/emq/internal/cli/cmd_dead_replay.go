package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// deadTargets reads the ID arguments or --all of replay and purge: exactly
// one of them, no id twice.
func deadTargets(verb string, args []string, all bool) ([]echomq.ID, error) {
	switch {
	case all && len(args) > 0:
		return nil, usagef("dead %s: give dead letter ids or --all, not both", verb)
	case !all && len(args) == 0:
		return nil, usagef("dead %s: give the dead letter ids, or --all for every one", verb)
	}
	ids, err := parseDeadIDs(args)
	if err != nil {
		return nil, err
	}
	seen := make(map[echomq.ID]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return nil, usagef("dead letter %s given twice", id)
		}
		seen[id] = true
	}
	return ids, nil
}

func (a *app) deadReplayCommand() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "replay STREAM (ID... | --all)",
		Short: "Append dead letters back to their stream as new events",
		Long: `Append each dead letter's payload to STREAM as a new event (a new EVT id, which
the stream's groups deliver like any other) and delete the dead letter, in one
atomic step per dead letter: replaying one twice appends it once. Fix the
handler first. With ids, every one must exist (else exit 3 and nothing is
replayed); --all replays every dead letter, oldest first.`,
		Example: "  emq dead replay orders EVT0DqulWYZktk\n  emq dead replay orders --all",
		Args:    argsRange(1, -1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			ids, err := deadTargets("replay", args[1:], all)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			return a.withDead(ctx, args[0], func(d *echomq.DeadLetters) error {
				if all {
					dls, err := d.List(ctx, echomq.All, nil)
					if err != nil {
						return err
					}
					for _, dl := range dls {
						ids = append(ids, dl.ID)
					}
				} else {
					for _, id := range ids {
						if _, err := d.Get(ctx, id); err != nil {
							return a.deadNotFound(err, args[0], id)
						}
					}
				}
				doc := replayDoc{Queue: a.queue, Stream: args[0], Replayed: make([]replayPair, 0, len(ids))}
				for _, id := range ids {
					nid, err := d.Replay(ctx, id)
					if err != nil {
						return a.deadNotFound(err, args[0], id)
					}
					doc.Replayed = append(doc.Replayed, replayPair{Dead: id.String(), ID: nid.String()})
				}
				if a.json {
					return writeJSON(a.stdout, doc)
				}
				fmt.Fprintf(a.stdout, "replayed %d dead letter%s\n", len(doc.Replayed), plural(len(doc.Replayed)))
				for _, p := range doc.Replayed {
					if _, err := fmt.Fprintf(a.stdout, "  %s as %s\n", p.Dead, p.ID); err != nil {
						return err
					}
				}
				return nil
			})
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "replay every dead letter of the stream")
	return cmd
}

func (a *app) deadPurgeCommand() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "purge STREAM (ID... | --all)",
		Short: "Delete dead letters for good",
		Long: `Delete the dead letters ID... of STREAM, or every one with --all, and print how
many existed. Ids that do not exist (replayed or purged already) are not an
error; they are not counted.`,
		Example: "  emq dead purge orders EVT0DqulWYZktk\n  emq dead purge orders --all",
		Args:    argsRange(1, -1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			ids, err := deadTargets("purge", args[1:], all)
			if err != nil {
				return err
			}
			return a.withDead(cmd.Context(), args[0], func(d *echomq.DeadLetters) error {
				var n int64
				var err error
				if all {
					n, err = d.PurgeAll(cmd.Context())
				} else {
					n, err = d.Purge(cmd.Context(), ids...)
				}
				if err != nil {
					return err
				}
				if a.json {
					return writeJSON(a.stdout, purgeDoc{Queue: a.queue, Stream: args[0], Purged: n})
				}
				_, err = fmt.Fprintf(a.stdout, "purged %d dead letter%s\n", n, plural(int(n)))
				return err
			})
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "purge every dead letter of the stream")
	return cmd
}
