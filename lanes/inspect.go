package lanes

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// MaxList is the most rows one listing returns.
const MaxList = 1000

// Stats are the counts of a queue, read in O(1): the jobs per state are the
// sizes of the state sets (waiting jobs are what the totals leave), and the
// totals are counted by the scripts as jobs move, so the counts equal a
// recount of the keys on every path.
type Stats struct {
	// Jobs per state now.
	Waiting, Active, Delayed, Backoff, Dead int64
	// Running totals: jobs enqueued, completed, failed attempts that were
	// retried, lapsed leases, releases at shutdown, dead jobs retried and
	// dead jobs deleted. Enqueued always equals the sum of the gauges plus
	// Completed and Deleted.
	Enqueued, Completed, Failed, Reaped, Released, Retried, Deleted int64
	// Lanes counts lanes with waiting jobs (a failed job waiting out its
	// backoff included), Busy the lanes with jobs in flight, Ready the lanes
	// on the rotation.
	Lanes, Busy, Ready int64
	// Paused reports a queue-wide pause.
	Paused bool
	// DefaultLaneLimit is the in-flight limit of lanes without an override.
	DefaultLaneLimit int
}

// Stats reads the counts of the queue. It returns engine errors wrapped in
// an [*echomq.OpError].
func (q *Queue) Stats(ctx context.Context) (Stats, error) {
	r, err := q.conn.LaneStats(ctx, q.keys)
	if err != nil {
		return Stats{}, opError("stats", q.name, err)
	}
	c := r.Totals
	s := Stats{
		Active: r.Active, Delayed: r.Delayed, Backoff: r.Backoff, Dead: r.Dead,
		Enqueued: c["enqueued"], Completed: c["completed"], Failed: c["failed"], Reaped: c["reaped"],
		Released: c["released"], Retried: c["retried"], Deleted: c["deleted"],
		Lanes: r.Lanes, Busy: r.Busy, Ready: r.Ring, Paused: r.Paused, DefaultLaneLimit: 1,
	}
	// Every admitted job is in exactly one place: the state sets, a
	// lane as waiting, or gone (completed, deleted).
	s.Waiting = s.Enqueued - s.Completed - s.Deleted - s.Active - s.Delayed - s.Backoff - s.Dead
	if n, err := strconv.Atoi(r.DefaultLimit); err == nil {
		s.DefaultLaneLimit = n
	}
	return s, nil
}

// LaneInfo describes one lane.
type LaneInfo struct {
	Lane string
	// Depth counts the jobs in the lane's order: waiting, and a failed job
	// waiting out its backoff at the head.
	Depth    int64
	InFlight int64
	Limit    int
	Paused   bool
	// HeldUntil is when the backoff hold of the lane ends; zero when the
	// lane is not held.
	HeldUntil time.Time
	// Ready reports that the lane is on the rotation (servable).
	Ready bool
}

// Lane describes lane (all zero counts for a lane never used). It returns
// an [*echomq.NameError] for a bad lane and engine errors wrapped in an
// [*echomq.OpError].
func (q *Queue) Lane(ctx context.Context, lane string) (LaneInfo, error) {
	if err := keyspace.Lane(lane); err != nil {
		return LaneInfo{}, err
	}
	r, err := q.conn.LaneInfo(ctx, q.keys, lane)
	if err != nil {
		return LaneInfo{}, opError("lane", q.name, err)
	}
	return laneInfo(r), nil
}

func laneInfo(r wire.LaneRow) LaneInfo {
	return LaneInfo{
		Lane: r.Lane, Depth: r.Depth, InFlight: r.InFlight, Limit: int(r.Limit),
		Paused: r.Paused, HeldUntil: msTime(r.HoldMs), Ready: r.Ready,
	}
}

// LaneListParams page through the lanes with waiting jobs or jobs in
// flight.
type LaneListParams struct {
	// Cursor continues a listing from the Cursor of the previous page.
	// Defaults to "": the first page.
	Cursor string
	// Count is a hint of how many lanes a page holds (1..[MaxList]).
	// Defaults to 100.
	Count int
}

// LanePage is one page of lanes. Cursor is "" on the last page. A lane
// may show up on two pages if the index changed in between.
type LanePage struct {
	Lanes  []LaneInfo
	Cursor string
}

// Lanes lists the lanes with waiting jobs (a failed job waiting out its
// backoff included), then those with only jobs in flight, a page at a time,
// in no particular order. Lanes whose only jobs are delayed are not listed
// until the jobs are due. It returns an [*echomq.ArgumentError] for a bad cursor or count
// and engine errors wrapped in an [*echomq.OpError].
func (q *Queue) Lanes(ctx context.Context, p *LaneListParams) (LanePage, error) {
	var o LaneListParams
	if p != nil {
		o = *p
	}
	if o.Count == 0 {
		o.Count = 100
	}
	if o.Count < 1 || o.Count > MaxList {
		return LanePage{}, argError("count", strconv.Itoa(o.Count)+" is outside 1.."+strconv.Itoa(MaxList))
	}
	cursor := o.Cursor
	if cursor == "" {
		cursor = "0"
	} else if !validCursor(cursor) {
		return LanePage{}, argError("cursor", strconv.Quote(o.Cursor)+" is not a cursor of a previous page")
	}
	rows, next, err := q.conn.LaneList(ctx, q.keys, cursor, o.Count)
	if err != nil {
		return LanePage{}, opError("lanes", q.name, err)
	}
	page := LanePage{Lanes: make([]LaneInfo, len(rows))}
	for i, r := range rows {
		page.Lanes[i] = laneInfo(r)
	}
	if next != "0" {
		page.Cursor = next
	}
	return page, nil
}

// validCursor accepts the cursors Lanes hands out: "w:<n>" or "f:<n>".
func validCursor(c string) bool {
	if len(c) < 3 || (c[0] != 'w' && c[0] != 'f') || c[1] != ':' {
		return false
	}
	_, err := strconv.ParseUint(c[2:], 10, 64)
	return err == nil
}

// JobListParams select the jobs of [Queue.Jobs].
type JobListParams struct {
	// State selects the jobs: active ones by lease deadline, delayed and
	// backoff ones by due time, dead ones newest first, waiting ones in
	// claim order (of Lane, or lane by lane across the queue). Completed
	// jobs are not listed. Defaults to "": with a Lane, every job of the
	// lane in claim order (waiting and backoff); without, waiting jobs.
	State State
	// Lane restricts a listing of waiting jobs to one lane. Defaults to "":
	// all lanes.
	Lane string
	// Offset skips that many jobs. Defaults to 0.
	Offset int
	// Limit is the most jobs returned (1..[MaxList]). Defaults to 100.
	Limit int
}

// Jobs lists jobs by state. It returns an [*echomq.ArgumentError] for a
// bad state, offset or limit (or a lane given with a state other than
// waiting), an [*echomq.NameError] for a bad lane, and engine errors
// wrapped in an [*echomq.OpError].
func (q *Queue) Jobs(ctx context.Context, p JobListParams) ([]JobSummary, error) {
	if p.Limit == 0 {
		p.Limit = 100
	}
	if p.Limit < 1 || p.Limit > MaxList {
		return nil, argError("limit", strconv.Itoa(p.Limit)+" is outside 1.."+strconv.Itoa(MaxList))
	}
	if p.Offset < 0 {
		return nil, argError("offset", strconv.Itoa(p.Offset)+" is negative")
	}
	switch p.State {
	case "", StateWaiting:
		if p.Lane != "" {
			if err := keyspace.Lane(p.Lane); err != nil {
				return nil, err
			}
		}
		if p.State == "" && p.Lane == "" {
			p.State = StateWaiting
		}
	case StateActive, StateDelayed, StateBackoff, StateDead:
		if p.Lane != "" {
			return nil, argError("lane", "a lane filters waiting jobs only, not "+string(p.State)+" ones")
		}
	default:
		return nil, argError("state", strconv.Quote(string(p.State))+" cannot be listed")
	}
	rows, err := q.conn.LaneJobs(ctx, q.keys, string(p.State), p.Lane, p.Offset, p.Limit)
	if err != nil {
		return nil, opError("jobs", q.name, err)
	}
	out := make([]JobSummary, 0, len(rows))
	for _, r := range rows {
		id, err := echomq.ParseID(r.ID)
		if err != nil {
			return out, opError("jobs", q.name, err)
		}
		s := JobSummary{
			ID: id, Lane: r.Lane, State: State(r.State), Attempts: int(r.Attempts),
			MaxAttempts: int(r.Max), Seq: r.Seq, EnqueuedAt: msTime(r.Enq), LastError: r.LastError,
			PayloadBytes: int(r.PayloadBytes),
		}
		if s.State != StateWaiting && s.State != StateBackoff || p.State == StateBackoff {
			ms, _ := strconv.ParseInt(r.Score, 10, 64)
			s.At = msTime(ms)
		}
		out = append(out, s)
	}
	return out, nil
}

// Dead lists dead jobs, newest first; a shorthand of [Queue.Jobs].
func (q *Queue) Dead(ctx context.Context, offset, limit int) ([]JobSummary, error) {
	return q.Jobs(ctx, JobListParams{State: StateDead, Offset: offset, Limit: limit})
}

// Job reads one job with its payload and history. It returns an
// [*echomq.KindError] for an id that is not a JOB id, a [*NotFoundError]
// when there is no such job (or its tombstone expired), and engine errors
// wrapped in an [*echomq.OpError].
func (q *Queue) Job(ctx context.Context, id echomq.ID) (JobInfo, error) {
	if id.Brand() != BrandJob {
		return JobInfo{}, &echomq.KindError{Want: BrandJob, Got: id.Brand()}
	}
	r, err := q.conn.LaneJobGet(ctx, q.keys, id.String())
	if err != nil {
		return JobInfo{}, opError("job", q.name, err)
	}
	if r.Fields == nil {
		return JobInfo{}, &NotFoundError{ID: id}
	}
	f := r.Fields
	atoi := func(k string) int64 { n, _ := strconv.ParseInt(f[k], 10, 64); return n }
	info := JobInfo{
		ID: id, Lane: f["lane"], State: State(f["state"]), Attempts: int(atoi("attempts")),
		MaxAttempts: int(atoi("max")), Seq: atoi("seq"), Stalls: int(atoi("stalls")),
		EnqueuedAt: msTime(atoi("enq_ms")), ClaimedAt: msTime(atoi("claim_ms")), LastError: f["last_error"],
	}
	if r.LaneSeq >= 0 {
		info.Seq = r.LaneSeq
	}
	if p, ok := f["payload"]; ok && info.State != StateCompleted {
		info.Payload = []byte(p)
	}
	switch info.State {
	case StateActive:
		info.Due = msTime(r.LeaseMs)
	case StateDelayed, StateBackoff:
		info.Due = msTime(atoi("due_ms"))
	case StateCompleted:
		info.FinishedAt = msTime(atoi("done_ms"))
	case StateDead:
		info.FinishedAt = msTime(atoi("dead_ms"))
	}
	// The row's history starts after the enqueue, which the row records.
	first := HistoryEntry{At: info.EnqueuedAt, Event: "enqueued"}
	if d, ok := f["delay_ms"]; ok {
		first.Event, first.Detail = "delayed", d
	}
	info.History = append(info.History, first)
	if h := f["history"]; h != "" {
		for e := range strings.SplitSeq(h, "\n") {
			info.History = append(info.History, parseHistory(e))
		}
	}
	return info, nil
}

// RetryDead gives a dead job another run: it goes to the tail of its lane
// as a fresh arrival, with its attempts reset and its payload and history
// kept. It returns an [*echomq.KindError] for an id that is not a JOB id, a
// [*NotFoundError], a [*StateError] when the job is not dead, and engine
// errors wrapped in an [*echomq.OpError].
func (q *Queue) RetryDead(ctx context.Context, id echomq.ID) error {
	if id.Brand() != BrandJob {
		return &echomq.KindError{Want: BrandJob, Got: id.Brand()}
	}
	v, err := q.conn.LaneRetryDead(ctx, q.keys, q.cfg.History, id.String())
	return q.deadVerdict("retry", id, v.Code, v.State, err)
}

// DeleteDead deletes a dead job and its history; its id may then be
// enqueued again. It returns the errors of [Queue.RetryDead].
func (q *Queue) DeleteDead(ctx context.Context, id echomq.ID) error {
	if id.Brand() != BrandJob {
		return &echomq.KindError{Want: BrandJob, Got: id.Brand()}
	}
	v, err := q.conn.LaneDeleteDead(ctx, q.keys, id.String())
	return q.deadVerdict("delete", id, v.Code, v.State, err)
}

func (q *Queue) deadVerdict(op string, id echomq.ID, code int64, state string, err error) error {
	switch {
	case err != nil:
		return opError(op, q.name, err)
	case code == 0:
		return &NotFoundError{ID: id}
	case code < 0:
		return &StateError{ID: id, State: State(state), Want: StateDead}
	}
	return nil
}
