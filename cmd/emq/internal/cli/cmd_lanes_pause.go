package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq/lanes"
)

// pauseDoc is the JSON result of lanes pause and lanes resume.
type pauseDoc struct {
	Queue   string  `json:"queue"`
	Lane    *string `json:"lane"` // null: the whole queue
	Paused  bool    `json:"paused"`
	Changed bool    `json:"changed"`
}

func (a *app) lanesPauseCommand(pause bool) *cobra.Command {
	var lane string
	verb, past, short := "resume", "resumed", "Let claims go on, on the whole queue or one lane"
	long := `Let claims of the queue's jobs (or, with --lane, of one lane's) go on and wake
the parked workers. Prints whether it was paused.`
	if pause {
		verb, past, short = "pause", "paused", "Stop claims on the whole queue or one lane"
		long = `Stop claims of the queue's jobs (or, with --lane, of one lane's): enqueues,
completions and the janitor go on, jobs in flight finish, every job stays where
it is and the lanes keep their order. Prints whether it was running. A lane
paused inside a paused queue stays paused when the queue resumes.`
	}
	cmd := &cobra.Command{
		Use:     verb,
		Short:   short,
		Long:    long,
		Example: fmt.Sprintf("  emq lanes %s -q cm\n  emq lanes %s -q cm --lane PLR0KHTOWnGLuC", verb, verb),
		Args:    argsRange(0, 0),
		RunE: body(func(cmd *cobra.Command, _ []string) error {
			if err := a.checkLanesQueue(); err != nil {
				return err
			}
			byLane := cmd.Flags().Changed("lane")
			if byLane {
				if err := lanes.ValidateLane(lane); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			return a.withLanes(ctx, func(q *lanes.Queue) error {
				var changed bool
				var err error
				switch {
				case byLane && pause:
					changed, err = q.PauseLane(ctx, lane)
				case byLane:
					changed, err = q.ResumeLane(ctx, lane)
				case pause:
					changed, err = q.Pause(ctx)
				default:
					changed, err = q.Resume(ctx)
				}
				if err != nil {
					return err
				}
				doc := pauseDoc{Queue: a.queue, Paused: pause, Changed: changed}
				what := fmt.Sprintf("queue %q", a.queue)
				if byLane {
					doc.Lane = &lane
					what = fmt.Sprintf("lane %q of queue %q", lane, a.queue)
				}
				if a.json {
					return writeJSON(a.stdout, doc)
				}
				switch {
				case changed:
					_, err = fmt.Fprintf(a.stdout, "%s %s\n", past, what)
				case pause:
					_, err = fmt.Fprintf(a.stdout, "%s was paused already\n", what)
				default:
					_, err = fmt.Fprintf(a.stdout, "%s was not paused\n", what)
				}
				return err
			})
		}),
	}
	cmd.Flags().StringVar(&lane, "lane", "", "act on this lane only")
	return cmd
}
