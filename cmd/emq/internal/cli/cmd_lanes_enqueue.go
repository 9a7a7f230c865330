package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq/lanes"
)

// enqueueDoc is the JSON result of lanes enqueue.
type enqueueDoc struct {
	Queue string `json:"queue"`
	Lane  string `json:"lane"`
	ID    string `json:"id"`
}

func (a *app) lanesEnqueueCommand() *cobra.Command {
	var (
		idFlag   string
		delay    time.Duration
		attempts int
	)
	cmd := &cobra.Command{
		Use:   "enqueue LANE PAYLOAD",
		Short: "Enqueue a job on a lane and print its JOB id",
		Long: `Put a job with PAYLOAD (the argument's bytes; "-" reads standard input) at the
tail of LANE and print its JOB id. --id enqueues under your own JOB id, which
makes a retried enqueue safe: an id held by a live or dead job, or by a job
completed within the tombstone window (1h), is refused (exit 1) and nothing is
written. --delay keeps the job out of its lane until it is due.`,
		Example: "  emq lanes enqueue -q cm PLR0KHTOWnGLuC '{\"guess\":\"🍕\"}'\n  emq lanes enqueue -q cm PLR0KHTOWnGLuC - --delay 5m < job.json",
		Args:    argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkLanesQueue(); err != nil {
				return err
			}
			if err := lanes.ValidateLane(args[0]); err != nil {
				return err
			}
			opts := &lanes.EnqueueOpts{Delay: delay, MaxAttempts: attempts}
			if idFlag != "" {
				id, err := parseJobID(idFlag)
				if err != nil {
					return err
				}
				opts.ID = id
			}
			if delay < 0 {
				return usagef("invalid --delay %s: must not be negative", delay)
			}
			if attempts < 0 || attempts > lanes.MaxAttemptsLimit {
				return usagef("invalid --max-attempts %d: want 1..%d (0: the default, 5)", attempts, lanes.MaxAttemptsLimit)
			}
			payload := []byte(args[1])
			if args[1] == "-" {
				var err error
				if payload, err = io.ReadAll(a.stdin); err != nil {
					return err
				}
			}
			return a.withLanes(cmd.Context(), func(q *lanes.Queue) error {
				id, err := q.Enqueue(cmd.Context(), args[0], payload, opts)
				if err != nil {
					return a.lanesErr(err)
				}
				if a.json {
					return writeJSON(a.stdout, enqueueDoc{Queue: a.queue, Lane: args[0], ID: id.String()})
				}
				_, err = fmt.Fprintln(a.stdout, id)
				return err
			})
		}),
	}
	cmd.Flags().StringVar(&idFlag, "id", "", "enqueue under this JOB id instead of a minted one")
	cmd.Flags().DurationVar(&delay, "delay", 0, "keep the job out of its lane this long")
	cmd.Flags().IntVar(&attempts, "max-attempts", 0, "claims before the job dies (default 5)")
	return cmd
}
