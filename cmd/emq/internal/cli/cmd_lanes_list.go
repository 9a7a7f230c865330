package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq/lanes"
)

// laneDoc is the JSON form of a lane.
type laneDoc struct {
	Lane      string  `json:"lane"`
	Depth     int64   `json:"depth"`
	InFlight  int64   `json:"in_flight"`
	Limit     int     `json:"limit"`
	Paused    bool    `json:"paused"`
	HeldUntil *string `json:"held_until"` // null when the lane is not held
	Ready     bool    `json:"ready"`
}

// lanesListDoc is the JSON result of lanes lanes.
type lanesListDoc struct {
	Queue     string    `json:"queue"`
	Count     int       `json:"count"`
	Truncated bool      `json:"truncated"`
	Lanes     []laneDoc `json:"lanes"`
}

func (a *app) lanesLanesCommand() *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "lanes [LANE...]",
		Short: "List the lanes with jobs, or describe the lanes named",
		Long: `Without arguments, list the lanes with waiting jobs (a failed job waiting out its
backoff included) or jobs in flight, sorted by name, at most --count of them
(lanes whose only jobs are delayed show up once the jobs are due). With LANE
arguments, describe those lanes, in the order given (a lane never used shows
zeros). DEPTH counts the jobs in the lane's order, IN-FLIGHT the claimed ones,
LIMIT how many may be in flight at once; HELD-UNTIL is the end of a failed
job's backoff, during which no later job of the lane runs; READY says the lane
is on the rotation.`,
		Example: "  emq lanes -q cm\n  emq lanes -q cm PLR0KHTOWnGLuC --json",
		Args:    argsRange(0, -1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkLanesQueue(); err != nil {
				return err
			}
			for _, l := range args {
				if err := lanes.ValidateLane(l); err != nil {
					return err
				}
			}
			if limit < 1 {
				return usagef("invalid --count %d: must be at least 1", limit)
			}
			ctx := cmd.Context()
			return a.withLanes(ctx, func(q *lanes.Queue) error {
				doc := lanesListDoc{Queue: a.queue, Lanes: []laneDoc{}}
				var infos []lanes.LaneInfo
				if len(args) > 0 {
					for _, l := range args {
						info, err := q.Lane(ctx, l)
						if err != nil {
							return err
						}
						infos = append(infos, info)
					}
				} else {
					seen := map[string]bool{}
					p := &lanes.LaneListParams{Count: min(limit, lanes.MaxList)}
					for {
						page, err := q.Lanes(ctx, p)
						if err != nil {
							return err
						}
						for _, info := range page.Lanes {
							if seen[info.Lane] {
								continue // listed again: the index changed between pages
							}
							if len(infos) == limit {
								doc.Truncated = true
								break
							}
							seen[info.Lane] = true
							infos = append(infos, info)
						}
						if page.Cursor == "" || doc.Truncated {
							break
						}
						p.Cursor = page.Cursor
					}
					slices.SortFunc(infos, func(x, y lanes.LaneInfo) int { return strings.Compare(x.Lane, y.Lane) })
				}
				for _, in := range infos {
					doc.Lanes = append(doc.Lanes, laneDoc{
						Lane: in.Lane, Depth: in.Depth, InFlight: in.InFlight,
						Limit: in.Limit, Paused: in.Paused, HeldUntil: optTime(in.HeldUntil), Ready: in.Ready,
					})
				}
				doc.Count = len(doc.Lanes)
				if a.json {
					return writeJSON(a.stdout, doc)
				}
				tw := table(a.stdout)
				fmt.Fprintln(tw, "LANE\tDEPTH\tIN-FLIGHT\tLIMIT\tPAUSED\tHELD-UNTIL\tREADY")
				for _, in := range infos {
					fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%t\t%s\t%t\n", quoteField(in.Lane), in.Depth, in.InFlight,
						in.Limit, in.Paused, cellTime(in.HeldUntil), in.Ready)
				}
				return tw.Flush()
			})
		}),
	}
	cmd.Flags().IntVarP(&limit, "count", "n", lanes.MaxList, "list at most this many lanes")
	return cmd
}
