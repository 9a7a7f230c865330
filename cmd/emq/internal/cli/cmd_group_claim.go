package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// claimDoc is the JSON result of group claim.
type claimDoc struct {
	Queue    string   `json:"queue"`
	Stream   string   `json:"stream"`
	Group    string   `json:"group"`
	Consumer string   `json:"consumer"` // the new owner
	Claimed  []string `json:"claimed"`  // the entry ids moved
}

// parseEntryArg parses an entry argument: an entry id or an EVT id (its
// entry).
func parseEntryArg(s string) (echomq.EntryID, error) {
	if e, err := echomq.ParseEntryID(s); err == nil {
		return e, nil
	}
	if len(s) == idLen && s[0] >= 'A' && s[0] <= 'Z' {
		id, err := echomq.ParseEventID(s)
		return id.EntryID(), err
	}
	return echomq.EntryID{}, usagef("invalid entry %q: want an entry id <ms>-<seq> or an EVT id", s)
}

func (a *app) groupClaimCommand() *cobra.Command {
	var (
		owner   string
		minIdle time.Duration
		count   int
	)
	cmd := &cobra.Command{
		Use:   "claim STREAM GROUP CONSUMER [ENTRY...]",
		Short: "Make CONSUMER the owner of pending entries (move a dead consumer's backlog)",
		Long: `Move pending entries of GROUP to CONSUMER: the ENTRY arguments (entry ids or EVT
ids), or the pending entries selected by --owner (entries that consumer owns)
and --min-idle (entries idle at least that long), oldest first, at most -n. Give
entries or at least one selector: claiming every pending entry of every
consumer would take entries live consumers are handling.

The move is not a delivery: delivery counts stay as they were and idle times
restart. CONSUMER delivers the entries when it starts (it drains its own pending
list first) or reclaims them once idle. Entries no longer pending, or not idle
enough, are left out; the entries moved are printed.`,
		Example: `  emq group claim orders billing worker-2 --owner worker-1
  emq group claim orders billing worker-2 --min-idle 10m
  emq group claim orders billing worker-2 1748779200000-28672 EVT0DqulWYZktk`,
		Args: argsRange(3, -1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkGroup(args[0], args[1], args[2], owner); err != nil {
				return err
			}
			opts := &echomq.ClaimOpts{From: owner, MinIdle: minIdle, Count: count}
			for _, s := range args[3:] {
				e, err := parseEntryArg(s)
				if err != nil {
					return err
				}
				opts.IDs = append(opts.IDs, e)
			}
			f := cmd.Flags()
			switch {
			case len(opts.IDs) > 0 && (f.Changed("owner") || f.Changed("count")):
				return usagef("group claim: --owner and --count select entries; give them or ENTRY arguments, not both")
			case len(opts.IDs) == 0 && !f.Changed("owner") && !f.Changed("min-idle"):
				return usagef("group claim: name the entries (ENTRY...) or select them with --owner and/or --min-idle")
			case minIdle < 0:
				return usagef("invalid --min-idle %s: must not be negative", minIdle)
			}
			if err := checkPositive("count", count); err != nil {
				return err
			}
			return a.withGroup(cmd.Context(), args[0], args[1], func(g *echomq.Group) error {
				moved, err := g.Claim(cmd.Context(), args[2], opts)
				if err != nil {
					return err
				}
				ids := make([]string, len(moved))
				for i, e := range moved {
					ids[i] = e.String()
				}
				if a.json {
					return writeJSON(a.stdout, claimDoc{Queue: a.queue, Stream: args[0], Group: g.Name(), Consumer: args[2], Claimed: ids})
				}
				fmt.Fprintf(a.stdout, "claimed %d entr%s for consumer %q\n", len(ids), pluralY(len(ids)), args[2])
				for _, id := range ids {
					if _, err := fmt.Fprintf(a.stdout, "  %s\n", id); err != nil {
						return err
					}
				}
				return nil
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&owner, "owner", "", "claim the entries this consumer owns")
	f.DurationVar(&minIdle, "min-idle", 0, "claim only entries idle at least this long (checked again at the move)")
	f.IntVarP(&count, "count", "n", 100, "at most this many entries (with --owner or --min-idle)")
	return cmd
}

func pluralY(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}

// deleteConsumerDoc is the JSON result of group delete-consumer.
type deleteConsumerDoc struct {
	Queue    string `json:"queue"`
	Stream   string `json:"stream"`
	Group    string `json:"group"`
	Consumer string `json:"consumer"`
	Deleted  bool   `json:"deleted"`
}

func (a *app) groupDeleteConsumerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "delete-consumer STREAM GROUP CONSUMER",
		Short: "Remove a consumer that owns no pending entries",
		Long: `Remove CONSUMER from GROUP. A consumer that still owns pending entries is never
removed (that would drop its entries from the group for good): the command
fails with exit 1 and changes nothing; move the entries first with
"emq group claim STREAM GROUP OTHER --owner CONSUMER". The check and the
removal are one atomic step. A consumer that does not exist exits 3.`,
		Example: "  emq group claim orders billing worker-2 --owner worker-1\n  emq group delete-consumer orders billing worker-1",
		Args:    argsRange(3, 3),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkGroup(args[0], args[1], args[2]); err != nil {
				return err
			}
			return a.withGroup(cmd.Context(), args[0], args[1], func(g *echomq.Group) error {
				existed, err := g.DeleteConsumer(cmd.Context(), args[2])
				if err != nil {
					return err
				}
				if !existed {
					return &notFoundError{what: fmt.Sprintf("consumer %q of group %q of stream %q in queue %q", args[2], g.Name(), args[0], a.queue)}
				}
				if a.json {
					return writeJSON(a.stdout, deleteConsumerDoc{Queue: a.queue, Stream: args[0], Group: g.Name(), Consumer: args[2], Deleted: true})
				}
				_, err = fmt.Fprintf(a.stdout, "deleted consumer %q of group %q\n", args[2], g.Name())
				return err
			})
		}),
	}
}
