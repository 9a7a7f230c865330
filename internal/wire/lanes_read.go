package wire

import (
	"context"
	"strconv"

	"github.com/valkey-io/valkey-go"
)

// LaneStatsReply is the stats view: the running totals, the number of
// lanes with waiting jobs, the ring length, the queue pause flag, the
// default lane limit ("" when unset), the cardinalities of the state sets
// and the number of lanes with jobs in flight.
type LaneStatsReply struct {
	Totals                         map[string]int64
	Lanes, Ring                    int64
	Paused                         bool
	DefaultLimit                   string
	Active, Delayed, Backoff, Dead int64
	Busy                           int64
}

// LaneStats reads the stats view.
func (w *Conn) LaneStats(ctx context.Context, k *LaneKeys) (LaneStatsReply, error) {
	msg, err := w.runLane(ctx, laneReadLua, k, []string{"0", "stats"})
	if err != nil {
		return LaneStatsReply{}, err
	}
	return decodeLaneStats(msg)
}

// decodeLaneStats decodes the stats view's reply.
func decodeLaneStats(msg valkey.ValkeyMessage) (LaneStatsReply, error) {
	arr, err := laneArray(msg, "lanes stats", 10)
	if err != nil {
		return LaneStatsReply{}, err
	}
	pairs, _ := arr[0].ToArray()
	r := LaneStatsReply{
		Totals: make(map[string]int64, len(pairs)/2), Lanes: laneNum(arr[1]),
		Ring: laneNum(arr[2]), Paused: laneStr(arr[3]) != "", DefaultLimit: laneStr(arr[4]),
		Active: laneNum(arr[5]), Delayed: laneNum(arr[6]), Backoff: laneNum(arr[7]), Dead: laneNum(arr[8]),
		Busy: laneNum(arr[9]),
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		r.Totals[laneStr(pairs[i])] = laneNum(pairs[i+1])
	}
	return r, nil
}

// LaneRow is one lane in the lane views.
type LaneRow struct {
	Lane     string
	Depth    int64 // jobs in the lane's set: waiting and backoff
	InFlight int64
	Limit    int64
	Paused   bool
	HoldMs   int64 // -1 when not held
	Ready    bool  // on the ring
}

const laneRowFields = 7

func decodeLaneRows(arr []valkey.ValkeyMessage) []LaneRow {
	rows := make([]LaneRow, 0, len(arr)/laneRowFields)
	for i := 0; i+laneRowFields <= len(arr); i += laneRowFields {
		rows = append(rows, LaneRow{
			Lane: laneStr(arr[i]), Depth: laneNum(arr[i+1]), InFlight: laneNum(arr[i+2]),
			Limit: laneNum(arr[i+3]), Paused: laneNum(arr[i+4]) == 1, HoldMs: laneNum(arr[i+5]),
			Ready: laneNum(arr[i+6]) == 1,
		})
	}
	return rows
}

// LaneList reads one page of the lanes with waiting jobs, then of the
// lanes with jobs in flight only. The cursor is opaque: "0" to start, and
// "0" again when the listing is done.
func (w *Conn) LaneList(ctx context.Context, k *LaneKeys, cursor string, count int) ([]LaneRow, string, error) {
	msg, err := w.runLane(ctx, laneReadLua, k, []string{"0", "lanes", cursor, strconv.Itoa(count)})
	if err != nil {
		return nil, "", err
	}
	arr, err := laneArray(msg, "lanes list", 1)
	if err != nil {
		return nil, "", err
	}
	return decodeLaneRows(arr[1:]), laneStr(arr[0]), nil
}

// LaneInfo reads one lane.
func (w *Conn) LaneInfo(ctx context.Context, k *LaneKeys, lane string) (LaneRow, error) {
	msg, err := w.runLane(ctx, laneReadLua, k, []string{"0", "lane", lane})
	if err != nil {
		return LaneRow{}, err
	}
	arr, err := laneArray(msg, "lane info", laneRowFields)
	if err != nil {
		return LaneRow{}, err
	}
	return decodeLaneRows(arr)[0], nil
}

// LaneJobRow is one job in the job views. Score is the job's place in the
// set it was listed from: lease deadline, due time, time of death (ms) or
// arrival number.
type LaneJobRow struct {
	ID, State, Lane         string
	Attempts, Max, Seq, Enq int64
	Score                   string
	LastError               string
	PayloadBytes            int64
}

const laneJobRowFields = 10

// LaneJobs lists jobs in state (and lane, for waiting jobs), from offset.
func (w *Conn) LaneJobs(ctx context.Context, k *LaneKeys, state, lane string, offset, count int) ([]LaneJobRow, error) {
	msg, err := w.runLane(ctx, laneReadLua, k, []string{"0", "jobs", state, lane, strconv.Itoa(offset), strconv.Itoa(count)})
	if err != nil {
		return nil, err
	}
	return decodeLaneJobs(msg)
}

// decodeLaneJobs decodes the jobs view's reply.
func decodeLaneJobs(msg valkey.ValkeyMessage) ([]LaneJobRow, error) {
	arr, err := laneArray(msg, "lanes jobs", 0)
	if err != nil {
		return nil, err
	}
	rows := make([]LaneJobRow, 0, len(arr)/laneJobRowFields)
	for i := 0; i+laneJobRowFields <= len(arr); i += laneJobRowFields {
		rows = append(rows, LaneJobRow{
			ID: laneStr(arr[i]), State: laneStr(arr[i+1]), Lane: laneStr(arr[i+2]),
			Attempts: laneNum(arr[i+3]), Max: laneNum(arr[i+4]), Seq: laneNum(arr[i+5]), Enq: laneNum(arr[i+6]),
			Score: laneStr(arr[i+7]), LastError: laneStr(arr[i+8]), PayloadBytes: laneNum(arr[i+9]),
		})
	}
	return rows, nil
}

// LaneJobReply is the job view: the row's fields (nil when there is no
// row), its lease deadline in ms (-1 when not active) and its arrival
// number in its lane (-1 when not in its lane).
type LaneJobReply struct {
	Fields  map[string]string
	LeaseMs int64
	LaneSeq int64
}

// LaneJobGet reads one job.
func (w *Conn) LaneJobGet(ctx context.Context, k *LaneKeys, id string) (LaneJobReply, error) {
	msg, err := w.runLane(ctx, laneReadLua, k, []string{"0", "job", id})
	if err != nil {
		return LaneJobReply{}, err
	}
	return decodeLaneJob(msg)
}

// decodeLaneJob decodes the job view's reply.
func decodeLaneJob(msg valkey.ValkeyMessage) (LaneJobReply, error) {
	arr, err := laneArray(msg, "lanes job", 3)
	if err != nil {
		return LaneJobReply{}, err
	}
	r := LaneJobReply{LeaseMs: laneNum(arr[1]), LaneSeq: laneNum(arr[2])}
	pairs, _ := arr[0].ToArray()
	if len(pairs) > 0 {
		r.Fields = make(map[string]string, len(pairs)/2)
		for i := 0; i+1 < len(pairs); i += 2 {
			r.Fields[laneStr(pairs[i])] = laneStr(pairs[i+1])
		}
	}
	return r, nil
}
