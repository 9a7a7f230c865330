package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// trimDoc is the JSON result of a trim.
type trimDoc struct {
	Queue   string `json:"queue"`
	Stream  string `json:"stream"`
	Trim    string `json:"trim"` // the XTRIM arguments, e.g. "MAXLEN = 3"
	Removed int64  `json:"removed"`
	// Unarchived is how many removed events were never archived (a forced
	// trim of a stream under archive control).
	Unarchived int64   `json:"unarchived"`
	Watermark  *string `json:"watermark"` // the archive watermark W, null when none
}

func (a *app) trimCommand() *cobra.Command {
	var (
		maxLen int64
		minID  string
		exact  bool
		force  bool
	)
	cmd := &cobra.Command{
		Use:   "trim STREAM (--maxlen N | --minid T|ENTRY) [--exact]",
		Short: "Remove old events by length or age and print how many were removed",
		Long: `Remove events from the old end of STREAM: --maxlen N keeps the newest N,
--minid drops every event below an entry id, an EVT id or a time (minted before
its millisecond). Without --exact the trim is approximate: the engine removes
only whole internal nodes, so it may remove fewer events than asked (often none
on a small stream), never more.

A stream under archive control (it has an archive watermark, or an archiver
holds its lease) is trimmed by its archiver only, which trims nothing it has
not archived: trim refuses it (exit 1, nothing removed) unless --force is
given. A forced trim reports how many of the removed events lay above the
watermark: events that were never archived and are now gone for good.`,
		Example: `  emq trim orders --maxlen 1000
  emq trim orders --minid -24h --exact
  emq trim orders --maxlen 0 --exact --force`,
		Args: argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			byLen, byID := cmd.Flags().Changed("maxlen"), cmd.Flags().Changed("minid")
			if byLen == byID {
				return usagef("trim: give exactly one of --maxlen and --minid")
			}
			var spec echomq.TrimSpec
			if byLen {
				if maxLen < 0 {
					return usagef("invalid --maxlen %d: must not be negative", maxLen)
				}
				spec = echomq.MaxLen(maxLen)
			} else {
				e, err := parseMinID(minID, a.opts.Clock())
				if err != nil {
					return err
				}
				spec = echomq.MinEntry(e)
			}
			if exact {
				spec = spec.Exact()
			}
			if force {
				spec = spec.Force()
			}
			return a.withStream(cmd.Context(), args[0], func(s *echomq.Stream) error {
				r, err := s.Trim(cmd.Context(), spec)
				if err != nil {
					return err
				}
				n := r.Removed
				if a.json {
					return writeJSON(a.stdout, trimDoc{
						Queue: a.queue, Stream: s.Name(), Trim: spec.String(), Removed: n,
						Unarchived: r.Unarchived, Watermark: idOrNull(r.Watermark),
					})
				}
				if _, err = fmt.Fprintf(a.stdout, "removed %d event%s (%s)\n", n, plural(int(n)), spec); err != nil {
					return err
				}
				if n == 0 && !exact {
					// An approximate trim removes whole nodes of the engine's
					// stream only: a short excess stays until it fills one.
					fmt.Fprintln(a.stderr, "emq: an approximate trim removes only whole blocks of old events (the engine's stream nodes, about 100 each); add --exact to trim to the event")
				}
				if force && (r.Unarchived > 0 || !r.Watermark.IsZero()) {
					w := "none"
					if !r.Watermark.IsZero() {
						w = r.Watermark.String()
					}
					_, err = fmt.Fprintf(a.stdout, "destroyed %d unarchived event%s (above the archive watermark %s)\n", r.Unarchived, plural(int(r.Unarchived)), w)
				}
				return err
			})
		}),
	}
	cmd.Flags().Int64Var(&maxLen, "maxlen", 0, "keep the newest N events")
	cmd.Flags().StringVar(&minID, "minid", "", "drop the events below this entry id, EVT id or time")
	cmd.Flags().BoolVar(&exact, "exact", false, "trim exactly (=) instead of approximately (~)")
	cmd.Flags().BoolVar(&force, "force", false, "trim a stream under archive control, destroying unarchived events")
	return cmd
}
