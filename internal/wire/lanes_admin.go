package wire

import (
	"context"
	"strconv"
	"time"
)

// LaneSwept is what one janitor run did, and how long until the next item
// is due (Next < 0: nothing scheduled; 0: more is due now).
type LaneSwept struct {
	Reaped, Dead, Promoted, Released int64
	Next                             time.Duration
}

// LaneSweep runs the janitor once, doing at most limit items of each kind.
func (w *Conn) LaneSweep(ctx context.Context, k *LaneKeys, hist, limit int) (LaneSwept, error) {
	msg, err := w.runLane(ctx, laneSweepLua, k, []string{strconv.Itoa(hist), strconv.Itoa(limit)})
	if err != nil {
		return LaneSwept{}, err
	}
	arr, err := laneArray(msg, "lanes sweep", 5)
	if err != nil {
		return LaneSwept{}, err
	}
	s := LaneSwept{Reaped: laneNum(arr[0]), Dead: laneNum(arr[1]), Promoted: laneNum(arr[2]), Released: laneNum(arr[3])}
	if n := laneNum(arr[4]); n < 0 {
		s.Next = -1
	} else {
		s.Next = time.Duration(n) * time.Millisecond
	}
	return s, nil
}

// Lane control operations of [Conn.LaneControl].
const (
	LanePause        = "pause-lane"
	LaneResume       = "resume-lane"
	LaneLimit        = "limit-lane"
	LaneQueuePause   = "pause"
	LaneQueueResume  = "resume"
	LaneDefaultLimit = "default-limit"
)

// LaneControl runs one pause, resume or limit operation and reports whether
// it changed anything.
func (w *Conn) LaneControl(ctx context.Context, k *LaneKeys, op, lane string, n int) (bool, error) {
	msg, err := w.runLane(ctx, laneControlLua, k, []string{"0", op, lane, strconv.Itoa(n)})
	if err != nil {
		return false, err
	}
	return laneNum(msg) == 1, nil
}

// LaneRetryDead puts a dead job back at the tail of its lane with its
// attempts reset.
func (w *Conn) LaneRetryDead(ctx context.Context, k *LaneKeys, hist int, id string) (LaneVerdict, error) {
	return w.laneVerdict(ctx, laneDeadLua, k, []string{strconv.Itoa(hist), "retry", id})
}

// LaneDeleteDead deletes a dead job and its history.
func (w *Conn) LaneDeleteDead(ctx context.Context, k *LaneKeys, id string) (LaneVerdict, error) {
	return w.laneVerdict(ctx, laneDeadLua, k, []string{"0", "delete", id})
}

// LaneWait blocks up to timeout for a wake token (BLPOP on a connection of
// its own) and reports whether it got one. A cancelled ctx ends the wait at
// once with ctx's error.
func (w *Conn) LaneWait(ctx context.Context, wake string, timeout time.Duration) (bool, error) {
	secs := max(timeout.Seconds(), 0.001)
	_, err := w.c.Do(withBlock(ctx, timeout), w.c.B().Blpop().Key(wake).Timeout(secs).Build()).ToArray()
	if isNil(err) {
		return false, nil
	}
	if err != nil {
		return false, convert(err)
	}
	return true, nil
}
