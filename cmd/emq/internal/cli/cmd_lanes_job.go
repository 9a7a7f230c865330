package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

// historyDoc is the JSON form of one transition of a job.
type historyDoc struct {
	Time    *string `json:"time"`
	Event   string  `json:"event"`
	Attempt int     `json:"attempt"`
	Detail  string  `json:"detail"`
}

// jobDoc is the JSON result of lanes job.
type jobDoc struct {
	Queue       string       `json:"queue"`
	ID          string       `json:"id"`
	Lane        string       `json:"lane"`
	State       string       `json:"state"`
	Attempts    int          `json:"attempts"`
	MaxAttempts int          `json:"max_attempts"`
	Seq         int64        `json:"seq"`
	Stalls      int          `json:"stalls"`
	Enqueued    *string      `json:"enqueued"`
	Claimed     *string      `json:"claimed"`
	Due         *string      `json:"due"`
	Finished    *string      `json:"finished"`
	Error       string       `json:"error"`
	Payload     *string      `json:"payload"` // null once completed
	History     []historyDoc `json:"history"`
}

func (a *app) lanesJobCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "job JOB",
		Short: "Show one job with its payload and history",
		Long: `Show the job JOB: its lane, state, attempts, arrival number (SEQ, its place in
the lane's order), lapsed leases (stalls), times, last error, payload and
history of transitions, oldest first. DUE is the lease deadline of an active
job or the due time of a delayed or failed one; FINISHED when it completed or
died. A completed job shows until its tombstone expires, without its payload.
A job that does not exist exits 3.`,
		Example: "  emq lanes job -q cm JOB0KHTOWnGLuC",
		Args:    argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkLanesQueue(); err != nil {
				return err
			}
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			return a.withLanes(cmd.Context(), func(q *lanes.Queue) error {
				j, err := q.Job(cmd.Context(), id)
				if err != nil {
					return a.lanesErr(err)
				}
				doc := jobDoc{
					Queue: a.queue, ID: j.ID.String(), Lane: j.Lane, State: string(j.State),
					Attempts: j.Attempts, MaxAttempts: j.MaxAttempts, Seq: j.Seq, Stalls: j.Stalls,
					Enqueued: optTime(j.EnqueuedAt), Claimed: optTime(j.ClaimedAt), Due: optTime(j.Due),
					Finished: optTime(j.FinishedAt), Error: j.LastError, History: make([]historyDoc, len(j.History)),
				}
				if j.Payload != nil {
					p := string(j.Payload)
					doc.Payload = &p
				}
				for i, h := range j.History {
					doc.History[i] = historyDoc{Time: optTime(h.At), Event: h.Event, Attempt: h.Attempt, Detail: h.Detail}
				}
				if a.json {
					return writeJSON(a.stdout, doc)
				}
				return a.writeJob(j)
			})
		}),
	}
}

func (a *app) writeJob(j lanes.JobInfo) error {
	tw := table(a.stdout)
	fmt.Fprintf(tw, "id\t%s\n", j.ID)
	fmt.Fprintf(tw, "lane\t%s\n", quoteField(j.Lane))
	fmt.Fprintf(tw, "state\t%s\n", j.State)
	fmt.Fprintf(tw, "attempts\t%d/%d\n", j.Attempts, j.MaxAttempts)
	fmt.Fprintf(tw, "seq\t%d\n", j.Seq)
	fmt.Fprintf(tw, "stalls\t%d\n", j.Stalls)
	fmt.Fprintf(tw, "enqueued\t%s\n", cellTime(j.EnqueuedAt))
	fmt.Fprintf(tw, "claimed\t%s\n", cellTime(j.ClaimedAt))
	fmt.Fprintf(tw, "due\t%s\n", cellTime(j.Due))
	fmt.Fprintf(tw, "finished\t%s\n", cellTime(j.FinishedAt))
	errText, payload := "-", "-"
	if j.LastError != "" {
		errText = strconv.Quote(j.LastError)
	}
	if j.Payload != nil {
		payload = fmt.Sprintf("%s (%d bytes)", quoteField(string(j.Payload)), len(j.Payload))
	}
	fmt.Fprintf(tw, "error\t%s\n", errText)
	fmt.Fprintf(tw, "payload\t%s\n", payload)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout)
	tw = table(a.stdout)
	fmt.Fprintln(tw, "TIME\tEVENT\tATTEMPT\tDETAIL")
	for _, h := range j.History {
		detail := "-"
		if h.Detail != "" {
			detail = strconv.Quote(h.Detail)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", cellTime(h.At), h.Event, h.Attempt, detail)
	}
	return tw.Flush()
}

// jobIDs parses JOB ids; it returns an error (exit 2) for the first bad one
// or one given twice.
func jobIDs(args []string) ([]echomq.ID, error) {
	ids := make([]echomq.ID, len(args))
	seen := make(map[echomq.ID]bool, len(args))
	for i, s := range args {
		id, err := parseJobID(s)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, usagef("job %s given twice", id)
		}
		seen[id] = true
		ids[i] = id
	}
	return ids, nil
}
