package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq/lanes"
)

// jobSummaryDoc is the JSON form of a job in a listing.
type jobSummaryDoc struct {
	ID           string  `json:"id"`
	Lane         string  `json:"lane"`
	State        string  `json:"state"`
	Attempts     int     `json:"attempts"`
	MaxAttempts  int     `json:"max_attempts"`
	Seq          int64   `json:"seq"`
	Enqueued     *string `json:"enqueued"`
	At           *string `json:"at"` // lease deadline, due time or time of death; null for waiting jobs
	Error        string  `json:"error"`
	PayloadBytes int     `json:"payload_bytes"`
}

// jobsDoc is the JSON result of lanes jobs and lanes dead.
type jobsDoc struct {
	Queue  string          `json:"queue"`
	State  string          `json:"state"`
	Lane   *string         `json:"lane"`
	Offset int             `json:"offset"`
	Count  int             `json:"count"`
	Jobs   []jobSummaryDoc `json:"jobs"`
}

// jobsFlags are the selection flags of lanes jobs and lanes dead.
type jobsFlags struct {
	state, lane   string
	offset, count int
}

// params validates the flags before any I/O, with the rules of
// [lanes.Queue.Jobs].
func (f jobsFlags) params(cmd *cobra.Command) (lanes.JobListParams, error) {
	p := lanes.JobListParams{Lane: f.lane, Offset: f.offset, Limit: f.count}
	if f.state != "" {
		st, err := lanes.ParseState(f.state)
		if err != nil {
			return p, err
		}
		if st == lanes.StateCompleted {
			return p, usagef("invalid --state completed: completed jobs are not listed (lanes job shows one)")
		}
		p.State = st
	}
	if cmd.Flags().Changed("lane") {
		if err := lanes.ValidateLane(f.lane); err != nil {
			return p, err
		}
		if p.State != "" && p.State != lanes.StateWaiting {
			return p, usagef("--lane filters waiting jobs only, not %s ones", p.State)
		}
	}
	if f.offset < 0 {
		return p, usagef("invalid --offset %d: must not be negative", f.offset)
	}
	if f.count < 1 || f.count > lanes.MaxList {
		return p, usagef("invalid --count %d: want 1..%d", f.count, lanes.MaxList)
	}
	return p, nil
}

func (a *app) listJobs(cmd *cobra.Command, p lanes.JobListParams) error {
	ctx := cmd.Context()
	return a.withLanes(ctx, func(q *lanes.Queue) error {
		jobs, err := q.Jobs(ctx, p)
		if err != nil {
			return err
		}
		doc := jobsDoc{Queue: a.queue, State: string(p.State), Offset: p.Offset, Count: len(jobs), Jobs: make([]jobSummaryDoc, len(jobs))}
		if p.Lane != "" {
			doc.Lane = &p.Lane
		}
		if doc.State == "" {
			doc.State = "lane" // every job in the lane's order
		}
		for i, j := range jobs {
			doc.Jobs[i] = jobSummaryDoc{
				ID: j.ID.String(), Lane: j.Lane, State: string(j.State), Attempts: j.Attempts,
				MaxAttempts: j.MaxAttempts, Seq: j.Seq, Enqueued: optTime(j.EnqueuedAt), At: optTime(j.At),
				Error: j.LastError, PayloadBytes: j.PayloadBytes,
			}
		}
		if a.json {
			return writeJSON(a.stdout, doc)
		}
		tw := table(a.stdout)
		fmt.Fprintln(tw, "ID\tLANE\tSTATE\tATTEMPTS\tSEQ\tENQUEUED\tAT\tBYTES\tERROR")
		for _, j := range jobs {
			errText := "-"
			if j.LastError != "" {
				errText = strconv.Quote(j.LastError)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d\t%s\t%s\t%d\t%s\n", j.ID, quoteField(j.Lane), j.State, j.Attempts,
				j.MaxAttempts, j.Seq, cellTime(j.EnqueuedAt), cellTime(j.At), j.PayloadBytes, errText)
		}
		return tw.Flush()
	})
}

func (f *jobsFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVar(&f.offset, "offset", 0, "skip this many jobs")
	cmd.Flags().IntVarP(&f.count, "count", "n", 100, "list at most this many jobs (1..1000)")
}

func (a *app) lanesJobsCommand() *cobra.Command {
	var f jobsFlags
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List jobs by state or lane",
		Long: `List the jobs in one state: waiting ones in claim order (lane by lane), active
ones by lease deadline, delayed and backoff ones by due time, dead ones newest
first. --lane lists one lane's jobs in claim order: without --state its waiting
jobs and a failed one waiting out its backoff at the head; with --state waiting
the waiting ones only. Completed jobs are not listed; "lanes job" shows one.
AT is the lease deadline, the due time or the time of death.`,
		Example: "  emq lanes jobs -q cm --state active\n  emq lanes jobs -q cm --lane PLR0KHTOWnGLuC --json",
		Args:    argsRange(0, 0),
		RunE: body(func(cmd *cobra.Command, _ []string) error {
			if err := a.checkLanesQueue(); err != nil {
				return err
			}
			p, err := f.params(cmd)
			if err != nil {
				return err
			}
			if p.State == "" && p.Lane == "" {
				p.State = lanes.StateWaiting
			}
			return a.listJobs(cmd, p)
		}),
	}
	f.register(cmd)
	cmd.Flags().StringVar(&f.state, "state", "", "waiting, active, delayed, backoff or dead (default: waiting, or with --lane the lane's order)")
	cmd.Flags().StringVar(&f.lane, "lane", "", "list one lane's jobs")
	return cmd
}

func (a *app) lanesDeadCommand() *cobra.Command {
	var f jobsFlags
	cmd := &cobra.Command{
		Use:   "dead",
		Short: "List dead jobs, newest first; delete them",
		Long: `List the dead jobs (attempts spent, or cancelled by their handler), newest first,
with their last error. "lanes retry" gives them another run; "lanes dead
delete" deletes them.`,
		Example: "  emq lanes dead -q cm\n  emq lanes dead -q cm --json | jq -r '.jobs[].id'",
		Args:    cobra.NoArgs,
		RunE: body(func(cmd *cobra.Command, _ []string) error {
			if err := a.checkLanesQueue(); err != nil {
				return err
			}
			f.state = string(lanes.StateDead)
			p, err := f.params(cmd)
			if err != nil {
				return err
			}
			return a.listJobs(cmd, p)
		}),
	}
	f.register(cmd)
	cmd.AddCommand(a.lanesDeadDeleteCommand())
	return cmd
}
