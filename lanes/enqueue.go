package lanes

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// MaxAttemptsLimit is the largest MaxAttempts an enqueue may ask for.
const MaxAttemptsLimit = 1000

// EnqueueOpts are the per-job options of an enqueue; nil means all
// defaults.
type EnqueueOpts struct {
	// ID is the job's id, a JOB id. Supply it to make the enqueue
	// idempotent: a producer retrying after an error reuses its id, and the
	// duplicate check refuses the second copy. Defaults to the zero ID: a
	// fresh id is minted by the client's minter.
	ID echomq.ID

	// Delay keeps the job out of its lane until it is due; once due it
	// sorts among its lane's jobs by when it was enqueued. Defaults to 0:
	// waiting at once. Negative delays are refused.
	Delay time.Duration

	// MaxAttempts is how many claims the job gets before it dies (1 to
	// 1000). Defaults to 0: the queue's Config.MaxAttempts.
	MaxAttempts int
}

// Request is one job of [Queue.EnqueueBatch].
type Request struct {
	Lane    string
	Payload []byte
	Opts    *EnqueueOpts
}

// Enqueued is the verdict on one job of [Queue.EnqueueBatch]: its id, and
// Err when it was not admitted (a [*DuplicateError], or an engine error).
type Enqueued struct {
	ID  echomq.ID
	Err error
}

// Enqueue puts a job with payload at the tail of lane (or, with a delay,
// schedules it) and returns its id.
//
// It returns, before any I/O: an [*echomq.NameError] for a bad lane (see
// [ValidateLane]); an [*echomq.KindError] for a supplied id that is not a
// JOB id; an [*echomq.ArgumentError] for a payload over Config.MaxPayload,
// a negative delay or MaxAttempts out of range. It returns a
// [*DuplicateError] when a live job, a dead job or a job completed within
// the tombstone window holds the id (nothing is written), and engine
// errors wrapped in an [*echomq.OpError].
//
// Concurrent enqueues on one Queue are group-committed: while one script
// call is in flight the next ones queue up and go out together, so many
// producers cost the engine one script call per batch. Once submitted an
// enqueue runs to its end even if ctx is cancelled meanwhile, so a
// producer never has to guess whether its job was admitted; a ctx already
// done returns its error with nothing written.
func (q *Queue) Enqueue(ctx context.Context, lane string, payload []byte, opts *EnqueueOpts) (echomq.ID, error) {
	a, id, err := q.admit(lane, payload, opts)
	if err != nil {
		return echomq.ID{}, err
	}
	if id.IsZero() {
		if id, err = q.mint(ctx, &a); err != nil {
			return echomq.ID{}, opError("enqueue", q.name, err)
		}
	}
	v, err := q.enqueues.Do(ctx, a)
	if err != nil {
		return echomq.ID{}, opError("enqueue", q.name, err)
	}
	if !v.Admitted {
		return id, &DuplicateError{ID: id, State: State(v.State)}
	}
	return id, nil
}

// EnqueueBatch enqueues several jobs in order, up to 256 per round trip,
// and returns a verdict per job (a round trip that failed fails all of its
// jobs). Every request is checked first: if one is bad
// (the errors of [Queue.Enqueue]) nothing is written and the error names
// its index. Duplicates are refused one by one in the verdicts.
func (q *Queue) EnqueueBatch(ctx context.Context, reqs []Request) ([]Enqueued, error) {
	as := make([]wire.LaneAdmit, len(reqs))
	out := make([]Enqueued, len(reqs))
	for i, r := range reqs {
		a, id, err := q.admit(r.Lane, r.Payload, r.Opts)
		if err != nil {
			return nil, fmt.Errorf("echomq: lanes: enqueue batch: request %d: %w", i, err)
		}
		as[i], out[i].ID = a, id
	}
	// Ids are minted once every request passed (the first mint of a queue
	// leases a node id in it: nothing is written for a bad batch).
	for i := range as {
		if out[i].ID.IsZero() {
			var err error
			if out[i].ID, err = q.mint(ctx, &as[i]); err != nil {
				return nil, opError("enqueue batch", q.name, err)
			}
		}
	}
	for from := 0; from < len(as); from += wire.LaneEnqueueMax {
		to := min(from+wire.LaneEnqueueMax, len(as))
		vs, err := q.conn.LaneEnqueue(ctx, q.keys, q.cfg.History, as[from:to])
		for i := from; i < to; i++ {
			switch {
			case err != nil:
				out[i].Err = opError("enqueue", q.name, err)
			case !vs[i-from].Admitted:
				out[i].Err = &DuplicateError{ID: out[i].ID, State: State(vs[i-from].State)}
			}
		}
	}
	return out, nil
}

// enqueueRun is the script call of a group of concurrent enqueues.
func (q *Queue) enqueueRun(ctx context.Context, as []wire.LaneAdmit) ([]wire.LaneAdmitted, error) {
	return q.conn.LaneEnqueue(ctx, q.keys, q.cfg.History, as)
}

// mint mints the JOB id of an admitted enqueue that named none.
func (q *Queue) mint(ctx context.Context, a *wire.LaneAdmit) (echomq.ID, error) {
	id, err := q.client.MintID(ctx, q.name, BrandJob)
	if err != nil {
		return echomq.ID{}, err
	}
	a.ID = id.String()
	return id, nil
}

// admit checks one enqueue and builds its script input; the id is left
// zero (and a.ID empty) when the caller named none: [Queue.mint] mints it
// once every check passed.
func (q *Queue) admit(lane string, payload []byte, opts *EnqueueOpts) (wire.LaneAdmit, echomq.ID, error) {
	var o EnqueueOpts
	if opts != nil {
		o = *opts
	}
	if err := keyspace.Lane(lane); err != nil {
		return wire.LaneAdmit{}, echomq.ID{}, err
	}
	if len(payload) > q.cfg.MaxPayload {
		return wire.LaneAdmit{}, echomq.ID{}, argError("payload", strconv.Itoa(len(payload))+" bytes is over the limit of "+strconv.Itoa(q.cfg.MaxPayload))
	}
	if o.Delay < 0 {
		return wire.LaneAdmit{}, echomq.ID{}, argError("delay", o.Delay.String()+" is negative")
	}
	if o.MaxAttempts < 0 || o.MaxAttempts > MaxAttemptsLimit {
		return wire.LaneAdmit{}, echomq.ID{}, argError("max attempts", strconv.Itoa(o.MaxAttempts)+" is outside 1.."+strconv.Itoa(MaxAttemptsLimit))
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = q.cfg.MaxAttempts
	}
	id := o.ID
	switch {
	case id.IsZero():
	case id.Brand() != BrandJob:
		return wire.LaneAdmit{}, echomq.ID{}, &echomq.KindError{Want: BrandJob, Got: id.Brand()}
	}
	// A delay below a millisecond still means "later", not "now".
	delay := o.Delay
	if delay > 0 && delay < time.Millisecond {
		delay = time.Millisecond
	}
	var sid string
	if !id.IsZero() {
		sid = id.String()
	}
	return wire.LaneAdmit{ID: sid, Lane: lane, Payload: payload, Delay: delay, MaxAttempts: o.MaxAttempts}, id, nil
}
