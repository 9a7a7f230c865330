package lanes

import (
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq"
)

// BrandJob is the brand of job ids: [Queue.Enqueue] mints them, and a job
// id of another brand is refused with an [*echomq.KindError].
const BrandJob = "JOB"

// State is where a job is in its life; see the package doc for the
// machine.
type State string

// The states of a job.
const (
	// StateWaiting: in its lane, to be claimed in arrival order.
	StateWaiting State = "waiting"
	// StateActive: claimed; held by a worker until its lease ends.
	StateActive State = "active"
	// StateDelayed: enqueued with a delay; enters its lane when due.
	StateDelayed State = "delayed"
	// StateBackoff: failed; at the head of its lane, which is held until
	// the backoff ends.
	StateBackoff State = "backoff"
	// StateDead: attempts spent or cancelled; kept until retried or deleted.
	StateDead State = "dead"
	// StateCompleted: done; the row stays as a tombstone for the window.
	StateCompleted State = "completed"
)

// States lists the states in display order.
var States = []State{StateWaiting, StateActive, StateDelayed, StateBackoff, StateDead, StateCompleted}

// ParseState parses a state name; it returns an [*echomq.ArgumentError] for
// an unknown one.
func ParseState(s string) (State, error) {
	for _, st := range States {
		if string(st) == s {
			return st, nil
		}
	}
	return "", argError("state", strconv.Quote(s)+" is not one of waiting, active, delayed, backoff, dead, completed")
}

// Job is one claimed job, handed to a handler or returned by
// [Queue.Claim]. It carries the claim's fencing token: settle it with the
// Queue it came from.
type Job struct {
	// ID is the job's JOB id.
	ID echomq.ID
	// Lane is the lane the job was enqueued on.
	Lane string
	// Payload is the job's bytes, as enqueued.
	Payload []byte
	// Attempt counts the claims of this job, this one included (1 on the
	// first run).
	Attempt int
	// MaxAttempts is how many claims the job gets before it dies.
	MaxAttempts int
	// Seq is the job's arrival number in its queue: the order of its lane.
	Seq int64
	// EnqueuedAt is the engine time of the enqueue.
	EnqueuedAt time.Time

	token int64
}

// HistoryEntry is one transition of a job.
type HistoryEntry struct {
	// At is the engine time of the transition.
	At time.Time
	// Event is enqueued, delayed, promoted, claimed, completed, failed,
	// lease-expired, released, dead, cancelled or retried.
	Event string
	// Attempt is the job's attempt count at the transition.
	Attempt int
	// Detail is the error text of a failure, or the delay of a delayed
	// enqueue in ms.
	Detail string
}

func parseHistory(s string) HistoryEntry {
	parts := strings.SplitN(s, "|", 4)
	for len(parts) < 4 {
		parts = append(parts, "")
	}
	ms, _ := strconv.ParseInt(parts[0], 10, 64)
	attempt, _ := strconv.Atoi(parts[2])
	return HistoryEntry{At: time.UnixMilli(ms), Event: parts[1], Attempt: attempt, Detail: parts[3]}
}

// JobInfo is the full view of one job, from [Queue.Job].
type JobInfo struct {
	ID          echomq.ID
	Lane        string
	State       State
	Payload     []byte // nil once completed
	Attempts    int
	MaxAttempts int
	Seq         int64
	// Stalls counts the leases of the job that lapsed.
	Stalls     int
	EnqueuedAt time.Time
	// ClaimedAt is the time of the last claim; zero before the first.
	ClaimedAt time.Time
	// Due is the lease deadline of an active job, the due time of a delayed
	// job or the end of the backoff of a failed one; zero otherwise.
	Due time.Time
	// FinishedAt is when a completed job completed or a dead job died.
	FinishedAt time.Time
	LastError  string
	// History lists the job's transitions, oldest first (the newest
	// Config.History of them).
	History []HistoryEntry
}

// JobSummary is one job in a listing, from [Queue.Jobs].
type JobSummary struct {
	ID          echomq.ID
	Lane        string
	State       State
	Attempts    int
	MaxAttempts int
	Seq         int64
	EnqueuedAt  time.Time
	// At is the lease deadline (active), due time (delayed, backoff) or
	// time of death (dead); zero for waiting jobs.
	At           time.Time
	LastError    string
	PayloadBytes int
}

func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
