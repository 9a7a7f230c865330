package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

// deadJobsDoc is the JSON result of lanes retry and lanes dead delete.
type deadJobsDoc struct {
	Queue   string   `json:"queue"`
	Retried []string `json:"retried,omitempty"`
	Deleted []string `json:"deleted,omitempty"`
}

// deadJobTargets reads the JOB arguments or --all: exactly one of them.
func deadJobTargets(verb string, args []string, all bool) ([]echomq.ID, error) {
	switch {
	case all && len(args) > 0:
		return nil, usagef("lanes %s: give JOB ids or --all, not both", verb)
	case !all && len(args) == 0:
		return nil, usagef("lanes %s: give the dead jobs' JOB ids, or --all for every one", verb)
	}
	return jobIDs(args)
}

// actOnDead runs act (RetryDead or DeleteDead) on the dead jobs ids, or
// on every dead job with all. Given ids must all be dead jobs, else nothing
// is done: a missing one exits 3, one in another state exits 1. With all,
// a job settled meanwhile by someone else is skipped.
func (a *app) actOnDead(ctx context.Context, q *lanes.Queue, ids []echomq.ID, all bool,
	act func(context.Context, echomq.ID) error,
) ([]string, error) {
	if all {
		for off := 0; ; off += lanes.MaxList {
			page, err := q.Dead(ctx, off, lanes.MaxList)
			if err != nil {
				return nil, err
			}
			for _, j := range page {
				ids = append(ids, j.ID)
			}
			if len(page) < lanes.MaxList {
				break
			}
		}
	} else {
		for _, id := range ids {
			j, err := q.Job(ctx, id)
			if err != nil {
				return nil, a.lanesErr(err)
			}
			if j.State != lanes.StateDead {
				return nil, a.lanesErr(&lanes.StateError{ID: id, State: j.State, Want: lanes.StateDead})
			}
		}
	}
	done := make([]string, 0, len(ids))
	for _, id := range ids {
		err := act(ctx, id)
		if all && (errors.Is(err, lanes.ErrNotFound) || errors.Is(err, lanes.ErrWrongState)) {
			continue
		}
		if err != nil {
			return nil, a.lanesErr(err)
		}
		done = append(done, id.String())
	}
	return done, nil
}

func (a *app) writeDeadJobs(verb string, ids []string) error {
	if _, err := fmt.Fprintf(a.stdout, "%s %d dead job%s\n", verb, len(ids), plural(len(ids))); err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := fmt.Fprintf(a.stdout, "  %s\n", id); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) lanesRetryCommand() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "retry (JOB... | --all)",
		Short: "Give dead jobs another run",
		Long: `Put each dead job JOB back at the tail of its lane as a fresh arrival, with its
attempts reset and its payload and history kept. With ids, every one must be a
dead job, else nothing is retried: a job that does not exist exits 3, one that
is not dead exits 1. --all retries every dead job, newest first.`,
		Example: "  emq lanes retry -q cm JOB0KHTOWnGLuC\n  emq lanes retry -q cm --all",
		Args:    argsRange(0, -1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkLanesQueue(); err != nil {
				return err
			}
			ids, err := deadJobTargets("retry", args, all)
			if err != nil {
				return err
			}
			return a.withLanes(cmd.Context(), func(q *lanes.Queue) error {
				done, err := a.actOnDead(cmd.Context(), q, ids, all, q.RetryDead)
				if err != nil {
					return err
				}
				if a.json {
					return writeJSON(a.stdout, deadJobsDoc{Queue: a.queue, Retried: append([]string{}, done...)})
				}
				return a.writeDeadJobs("retried", done)
			})
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "retry every dead job")
	return cmd
}

func (a *app) lanesDeadDeleteCommand() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "delete (JOB... | --all)",
		Short: "Delete dead jobs for good",
		Long: `Delete each dead job JOB with its history; its id may then be enqueued again.
With ids, every one must be a dead job, else nothing is deleted: a job that
does not exist exits 3, one that is not dead exits 1. --all deletes every dead
job.`,
		Example: "  emq lanes dead delete -q cm JOB0KHTOWnGLuC\n  emq lanes dead delete -q cm --all",
		Args:    argsRange(0, -1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkLanesQueue(); err != nil {
				return err
			}
			ids, err := deadJobTargets("dead delete", args, all)
			if err != nil {
				return err
			}
			return a.withLanes(cmd.Context(), func(q *lanes.Queue) error {
				done, err := a.actOnDead(cmd.Context(), q, ids, all, q.DeleteDead)
				if err != nil {
					return err
				}
				if a.json {
					return writeJSON(a.stdout, deadJobsDoc{Queue: a.queue, Deleted: append([]string{}, done...)})
				}
				return a.writeDeadJobs("deleted", done)
			})
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "delete every dead job")
	return cmd
}
