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
}

func (a *app) trimCommand() *cobra.Command {
	var (
		maxLen int64
		minID  string
		exact  bool
	)
	cmd := &cobra.Command{
		Use:   "trim STREAM (--maxlen N | --minid T|ENTRY) [--exact]",
		Short: "Remove old events by length or age and print how many were removed",
		Long: `Remove events from the old end of STREAM: --maxlen N keeps the newest N,
--minid drops every event below an entry id, an EVT id or a time (minted before
its millisecond). Without --exact the trim is approximate: the engine removes
only whole internal nodes, so it may remove fewer events than asked (often none
on a small stream), never more.`,
		Example: `  emq trim orders --maxlen 1000
  emq trim orders --minid -24h --exact`,
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
			return a.withStream(cmd.Context(), args[0], func(s *echomq.Stream) error {
				n, err := s.Trim(cmd.Context(), spec)
				if err != nil {
					return err
				}
				if a.json {
					return writeJSON(a.stdout, trimDoc{Queue: a.queue, Stream: s.Name(), Trim: spec.String(), Removed: n})
				}
				_, err = fmt.Fprintf(a.stdout, "removed %d event%s (%s)\n", n, plural(int(n)), spec)
				return err
			})
		}),
	}
	cmd.Flags().Int64Var(&maxLen, "maxlen", 0, "keep the newest N events")
	cmd.Flags().StringVar(&minID, "minid", "", "drop the events below this entry id, EVT id or time")
	cmd.Flags().BoolVar(&exact, "exact", false, "trim exactly (=) instead of approximately (~)")
	return cmd
}
