package cli

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// resetDoc is the JSON result of group reset.
type resetDoc struct {
	Queue     string           `json:"queue"`
	Stream    string           `json:"stream"`
	Group     string           `json:"group"`
	DryRun    bool             `json:"dry_run"`
	From      string           `json:"from"` // last-delivered id before
	To        string           `json:"to"`   // last-delivered id after (or that would be)
	Redeliver int64            `json:"redeliver"`
	Skip      int64            `json:"skip"`
	Pending   map[string]int64 `json:"pending"` // per consumer, untouched by a reset
}

func (a *app) groupResetCommand() *cobra.Command {
	var (
		toID, toTime string
		by           time.Duration
		dry          bool
	)
	cmd := &cobra.Command{
		Use:   "reset STREAM GROUP (--to-id ID | --to-time TIME | --by-duration D) [--dry-run]",
		Short: "Move a group's read position to an id, a time or a duration ago",
		Long: `Move GROUP's position on STREAM so that its next new delivery is the first entry
at or after --to-id (an entry id or EVT id), --to-time (a time, as read takes
it) or --by-duration ago. Backwards, the group sees again every entry from there
up to where it was ("redeliver"); forwards, it skips the entries between
("skip"). Pending entries are left as they are (shown per consumer): they come
back by reclaim as before.

--dry-run prints the counts and changes nothing. Stop the group's consumers
first when the counts must match what follows: a running consumer moves the
position on by itself.`,
		Example: `  emq group reset orders billing --by-duration 1h --dry-run
  emq group reset orders billing --to-time 2024-06-01T12:00:00Z
  emq group reset orders billing --to-id 1717243200000-0`,
		Args: argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			opts := &echomq.ResetOpts{DryRun: dry, Ago: by}
			f := cmd.Flags()
			n := 0
			for _, name := range []string{"to-id", "to-time", "by-duration"} {
				if f.Changed(name) {
					n++
				}
			}
			if n != 1 {
				return usagef("group reset: give exactly one of --to-id, --to-time and --by-duration")
			}
			switch {
			case f.Changed("to-id"):
				e, err := parseEntryArg(toID)
				if err != nil {
					return err
				}
				opts.ToID = e
			case f.Changed("to-time"):
				t, err := parseTime(toTime, a.opts.Clock())
				if err != nil {
					return err
				}
				opts.ToTime = t
			case by <= 0:
				return usagef("invalid --by-duration %s: must be positive", by)
			}
			if err := a.checkGroup(args[0], args[1]); err != nil {
				return err
			}
			return a.withGroup(cmd.Context(), args[0], args[1], func(g *echomq.Group) error {
				res, err := g.Reset(cmd.Context(), opts)
				if err != nil {
					return err
				}
				if a.json {
					return writeJSON(a.stdout, resetDoc{
						Queue: a.queue, Stream: args[0], Group: g.Name(), DryRun: res.DryRun,
						From: res.From.String(), To: res.To.String(), Redeliver: res.Redeliver, Skip: res.Skip, Pending: res.Pending,
					})
				}
				return writeReset(a, args[0], g.Name(), res)
			})
		}),
	}
	cmd.Flags().StringVar(&toID, "to-id", "", "next delivery: the entry at or after this entry id or EVT id")
	cmd.Flags().StringVar(&toTime, "to-time", "", "next delivery: the first entry minted at or after this time")
	cmd.Flags().DurationVar(&by, "by-duration", 0, "next delivery: the first entry minted at or after now minus this")
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print what the reset would do; change nothing")
	return cmd
}

// fmtResetTo shows where a reset leaves the group: an entry id, or "just
// before <ms>-0" for the predecessor of a millisecond's first entry (whose
// sequence, 2^64-1, says nothing to a reader).
func fmtResetTo(e echomq.EntryID) string {
	if e.Seq == math.MaxUint64 && e.Ms < math.MaxUint64 {
		return fmt.Sprintf("just before %d-0", e.Ms+1)
	}
	return e.String()
}

func writeReset(a *app, stream, group string, res echomq.ResetResult) error {
	verb := "moved"
	if res.DryRun {
		verb = "would move"
	}
	if _, err := fmt.Fprintf(a.stdout, "group %q of stream %q %s from %s to %s: %d entries delivered again, %d skipped\n",
		group, stream, verb, res.From, fmtResetTo(res.To), res.Redeliver, res.Skip); err != nil {
		return err
	}
	names := make([]string, 0, len(res.Pending))
	for n := range res.Pending {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := table(a.stdout)
	fmt.Fprintln(tw, "CONSUMER\tPENDING")
	for _, n := range names {
		fmt.Fprintf(tw, "%s\t%d\n", n, res.Pending[n])
	}
	return tw.Flush()
}
