package lanes

import (
	"context"
	"strconv"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// MaxLaneLimit is the largest in-flight limit of a lane.
const MaxLaneLimit = 1 << 20

// Pause stops claims on the whole queue: claims return nothing, while
// enqueues, settles and the janitor go on. It reports whether the queue was
// running, and returns engine errors wrapped in an [*echomq.OpError].
func (q *Queue) Pause(ctx context.Context) (bool, error) {
	return q.control(ctx, wire.LaneQueuePause, "", 0)
}

// Resume lets claims on the queue go on and wakes parked workers. It
// reports whether the queue was paused, and returns engine errors wrapped
// in an [*echomq.OpError].
func (q *Queue) Resume(ctx context.Context) (bool, error) {
	return q.control(ctx, wire.LaneQueueResume, "", 0)
}

// PauseLane stops claims of lane's jobs; its jobs in flight finish as
// usual and its backlog stays in order. It reports whether the lane was
// running, and returns an [*echomq.NameError] for a bad lane and engine
// errors wrapped in an [*echomq.OpError].
func (q *Queue) PauseLane(ctx context.Context, lane string) (bool, error) {
	if err := keyspace.Lane(lane); err != nil {
		return false, err
	}
	return q.control(ctx, wire.LanePause, lane, 0)
}

// ResumeLane lets claims of lane's jobs go on. It reports whether the lane
// was paused, and returns the errors of [Queue.PauseLane].
func (q *Queue) ResumeLane(ctx context.Context, lane string) (bool, error) {
	if err := keyspace.Lane(lane); err != nil {
		return false, err
	}
	return q.control(ctx, wire.LaneResume, lane, 0)
}

// SetLaneLimit sets how many of lane's jobs may be in flight at once
// (1..[MaxLaneLimit]); 0 drops the override, so the lane follows the
// queue's default. With a limit above 1 the lane's jobs still start in
// order but may finish in any order. Lowering a limit below the jobs in
// flight lets them finish. It reports whether the limit changed, and
// returns an [*echomq.NameError] for a bad lane, an
// [*echomq.ArgumentError] for a limit out of range and engine errors
// wrapped in an [*echomq.OpError].
func (q *Queue) SetLaneLimit(ctx context.Context, lane string, limit int) (bool, error) {
	if err := keyspace.Lane(lane); err != nil {
		return false, err
	}
	if limit < 0 || limit > MaxLaneLimit {
		return false, argError("lane limit", strconv.Itoa(limit)+" is outside 0.."+strconv.Itoa(MaxLaneLimit))
	}
	return q.control(ctx, wire.LaneLimit, lane, limit)
}

// SetDefaultLaneLimit sets the in-flight limit of every lane without an
// override (1..[MaxLaneLimit]; the default is 1, which keeps each lane
// strictly in order). Raising it visits every lane with waiting jobs. It
// reports whether the default changed, and returns an
// [*echomq.ArgumentError] for a limit out of range and engine errors
// wrapped in an [*echomq.OpError].
func (q *Queue) SetDefaultLaneLimit(ctx context.Context, limit int) (bool, error) {
	if limit < 1 || limit > MaxLaneLimit {
		return false, argError("lane limit", strconv.Itoa(limit)+" is outside 1.."+strconv.Itoa(MaxLaneLimit))
	}
	return q.control(ctx, wire.LaneDefaultLimit, "", limit)
}

func (q *Queue) control(ctx context.Context, op, lane string, n int) (bool, error) {
	changed, err := q.conn.LaneControl(ctx, q.keys, op, lane, n)
	if err != nil {
		return false, opError(op, q.name, err)
	}
	return changed, nil
}
