package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

func (a *app) lanesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lanes",
		Short: "Inspect and control the lanes job queue of a queue",
		Long: `The lanes job queue of --queue keeps jobs (JOB ids with a payload) on lanes: one
FIFO per key, served in turn so that no lane waits more than one rotation.
These commands count, list and show jobs and lanes, retry and delete dead jobs,
pause and resume the queue or one lane, and enqueue jobs (for scripts and
tests; programs use the Go API). Job times (enqueued, due, died) are on the
engine's clock.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.lanesStatsCommand(), a.lanesLanesCommand(), a.lanesJobsCommand(), a.lanesJobCommand(),
		a.lanesDeadCommand(), a.lanesRetryCommand(), a.lanesPauseCommand(true), a.lanesPauseCommand(false),
		a.lanesEnqueueCommand())
	return cmd
}

// checkLanesQueue validates --queue for the lanes queue before any I/O: a
// Queue made on the zero Client runs the name grammar only.
func (a *app) checkLanesQueue() error {
	_, err := lanes.New(new(echomq.Client), a.queue, nil)
	return err
}

// withLanes connects, runs fn on the lanes queue and closes the client.
func (a *app) withLanes(ctx context.Context, fn func(*lanes.Queue) error) (err error) {
	c, err := a.connect(ctx, a.stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	q, err := lanes.New(c, a.queue, nil)
	if err != nil {
		return err
	}
	return fn(q)
}

// lanesErr turns the lanes errors about one job into the command's: a
// missing job exits 3, a job in the wrong state or a duplicate exits 1 with
// a message free of the package prefix.
func (a *app) lanesErr(err error) error {
	var (
		nf  *lanes.NotFoundError
		se  *lanes.StateError
		dup *lanes.DuplicateError
	)
	switch {
	case errors.As(err, &nf):
		return &notFoundError{what: fmt.Sprintf("job %s in queue %q", nf.ID, a.queue)}
	case errors.As(err, &se):
		return fmt.Errorf("job %s is %s, not %s", se.ID, se.State, se.Want)
	case errors.As(err, &dup):
		return fmt.Errorf("duplicate job %s: already %s", dup.ID, dup.State)
	}
	return err
}

// parseJobID parses a JOB id; another brand is an *echomq.KindError.
func parseJobID(s string) (echomq.ID, error) {
	id, err := echomq.ParseID(s)
	if err != nil {
		return echomq.ID{}, err
	}
	if id.Brand() != lanes.BrandJob {
		return echomq.ID{}, &echomq.KindError{Want: lanes.BrandJob, Got: id.Brand()}
	}
	return id, nil
}

// optTime renders an engine time for JSON: null when unset.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := fmtTime(t)
	return &s
}

// cellTime renders an engine time for a table: "-" when unset.
func cellTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return fmtTime(t)
}

// lanesStatsDoc is the JSON result of lanes stats.
type lanesStatsDoc struct {
	Queue            string           `json:"queue"`
	Paused           bool             `json:"paused"`
	DefaultLaneLimit int              `json:"default_lane_limit"`
	Jobs             map[string]int64 `json:"jobs"`
	Totals           map[string]int64 `json:"totals"`
	Lanes            map[string]int64 `json:"lanes"`
}

func (a *app) lanesStatsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Count the queue's jobs per state, its running totals and its lanes",
		Long: `Count the jobs of the lanes queue per state (waiting, active, delayed, backoff,
dead), the running totals (enqueued, completed, failed attempts retried, lapsed
leases reaped, releases at shutdown, dead jobs retried and deleted) and the
lanes: with waiting jobs, with jobs in flight (busy), on the rotation (ready).
Read in O(1); a queue never used counts zero.`,
		Example: "  emq lanes stats -q cm\n  emq lanes stats -q cm --json | jq .jobs.dead",
		Args:    argsRange(0, 0),
		RunE: body(func(cmd *cobra.Command, _ []string) error {
			if err := a.checkLanesQueue(); err != nil {
				return err
			}
			return a.withLanes(cmd.Context(), func(q *lanes.Queue) error {
				s, err := q.Stats(cmd.Context())
				if err != nil {
					return err
				}
				doc := lanesStatsDoc{
					Queue: a.queue, Paused: s.Paused, DefaultLaneLimit: s.DefaultLaneLimit,
					Jobs: map[string]int64{
						"waiting": s.Waiting, "active": s.Active, "delayed": s.Delayed,
						"backoff": s.Backoff, "dead": s.Dead,
					},
					Totals: map[string]int64{
						"enqueued": s.Enqueued, "completed": s.Completed, "failed": s.Failed,
						"reaped": s.Reaped, "released": s.Released, "retried": s.Retried, "deleted": s.Deleted,
					},
					Lanes: map[string]int64{"waiting": s.Lanes, "busy": s.Busy, "ready": s.Ready},
				}
				if a.json {
					return writeJSON(a.stdout, doc)
				}
				tw := table(a.stdout)
				fmt.Fprintf(tw, "queue\t%s\n", a.queue)
				fmt.Fprintf(tw, "paused\t%t\n", s.Paused)
				fmt.Fprintf(tw, "lane limit\t%d\n", s.DefaultLaneLimit)
				fmt.Fprintf(tw, "jobs\twaiting %d  active %d  delayed %d  backoff %d  dead %d\n",
					s.Waiting, s.Active, s.Delayed, s.Backoff, s.Dead)
				fmt.Fprintf(tw, "totals\tenqueued %d  completed %d  failed %d  reaped %d  released %d  retried %d  deleted %d\n",
					s.Enqueued, s.Completed, s.Failed, s.Reaped, s.Released, s.Retried, s.Deleted)
				fmt.Fprintf(tw, "lanes\twaiting %d  busy %d  ready %d\n", s.Lanes, s.Busy, s.Ready)
				return tw.Flush()
			})
		}),
	}
}
