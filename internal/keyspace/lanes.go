package keyspace

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// MaxLaneLen is the longest lane name in bytes.
const MaxLaneLen = 256

// Lane checks a lane name: 1..256 bytes of valid UTF-8 without control
// characters (C0, DEL, C1). Lanes are keys of the caller's domain (a PLR id,
// a tenant, an e-mail address), so the grammar is wider than the one of
// queue and stream names: colons, braces and spaces are allowed.
//
// That is safe because a lane only ever appears in two places. As a member
// of the queue's sets, lists and hashes it is opaque bytes. As the suffix of
// the lane key "emq:{q}:lane:<lane>" it follows the hash tag, whose closing
// brace is the first "}" after the first "{", so no byte of a lane can move
// the key to another slot; and since no other key of a queue starts with
// "lane:", no lane can reach into another key. Control bytes are refused
// because they are never meant and they garble logs and the CLI.
func Lane(lane string) error {
	if lane == "" {
		return &NameError{Kind: "lane", Name: lane, Reason: "must not be empty"}
	}
	if len(lane) > MaxLaneLen {
		return &NameError{Kind: "lane", Name: truncate(lane), Reason: "longer than " + strconv.Itoa(MaxLaneLen) + " bytes"}
	}
	for i, r := range lane {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(lane[i:]); size <= 1 {
				return &NameError{Kind: "lane", Name: lane, Reason: fmt.Sprintf("invalid UTF-8 at byte %d", i)}
			}
		}
		if unicode.IsControl(r) {
			return &NameError{Kind: "lane", Name: lane, Reason: fmt.Sprintf("control character %U at byte %d", r, i)}
		}
	}
	return nil
}

// The lanes job queue of a queue q keeps these keys; docs/lanes.md lists
// their types, contents and writers. Callers have checked q (and the lane,
// with [Lane]); job ids are 14-byte branded JOB ids.

// LaneKey returns "emq:{q}:lane:<lane>", one lane's waiting jobs (a ZSET of
// JOB ids scored by arrival sequence).
func LaneKey(q, lane string) string { return LanePrefix(q) + lane }

// LanePrefix returns "emq:{q}:lane:", the prefix the lane scripts append a
// lane name to.
func LanePrefix(q string) string { return QueueKey(q, "lane:") }

// JobKey returns "emq:{q}:job:<id>", the row of one job (a HASH).
func JobKey(q, id string) string { return JobPrefix(q) + id }

// JobPrefix returns "emq:{q}:job:", the prefix the lane scripts append a
// JOB id to.
func JobPrefix(q string) string { return QueueKey(q, "job:") }

// LaneRingKey returns "emq:{q}:ring", the LIST of lanes a claim rotates
// through.
func LaneRingKey(q string) string { return QueueKey(q, "ring") }

// LaneRingSetKey returns "emq:{q}:ringset", the SET mirroring the ring's
// members so membership is O(1).
func LaneRingSetKey(q string) string { return QueueKey(q, "ringset") }

// LaneActiveKey returns "emq:{q}:active", the ZSET of claimed jobs scored
// by lease deadline.
func LaneActiveKey(q string) string { return QueueKey(q, "active") }

// LaneScheduleKey returns "emq:{q}:schedule", the ZSET of delayed jobs
// scored by due time.
func LaneScheduleKey(q string) string { return QueueKey(q, "schedule") }

// LaneBackoffKey returns "emq:{q}:backoff", the ZSET of failed jobs waiting
// out their backoff, scored by due time.
func LaneBackoffKey(q string) string { return QueueKey(q, "backoff") }

// LaneHoldKey returns "emq:{q}:hold", the ZSET of held lanes scored by the
// time the hold ends.
func LaneHoldKey(q string) string { return QueueKey(q, "hold") }

// LaneDeadKey returns "emq:{q}:dead", the ZSET of dead jobs scored by time
// of death.
func LaneDeadKey(q string) string { return QueueKey(q, "dead") }

// LanePausedKey returns "emq:{q}:paused", the SET of paused lanes.
func LanePausedKey(q string) string { return QueueKey(q, "paused") }

// LaneInFlightKey returns "emq:{q}:inflight", the HASH lane → jobs claimed.
func LaneInFlightKey(q string) string { return QueueKey(q, "inflight") }

// LaneLimitKey returns "emq:{q}:lane_limit", the HASH lane → in-flight
// limit, overrides of the queue default only.
func LaneLimitKey(q string) string { return QueueKey(q, "lane_limit") }

// LanesKey returns "emq:{q}:lanes", the SET of lanes with waiting jobs
// (the index of lanes; lanes with jobs in flight are the fields of the
// in-flight hash).
func LanesKey(q string) string { return QueueKey(q, "lanes") }

// LaneStatsKey returns "emq:{q}:stats", the HASH of running totals
// (enqueued, completed, deleted, …); the per-state counts are the sizes of
// the state sets.
func LaneStatsKey(q string) string { return QueueKey(q, "stats") }

// LaneSeqKey returns "emq:{q}:seq", the STRING counter that numbers
// arrivals.
func LaneSeqKey(q string) string { return QueueKey(q, "seq") }

// LaneWakeKey returns "emq:{q}:wake", the capped LIST of wake tokens parked
// dispatchers block on.
func LaneWakeKey(q string) string { return QueueKey(q, "wake") }

// LaneMetaKey returns "emq:{q}:meta", the HASH of queue settings (paused,
// lane_limit).
func LaneMetaKey(q string) string { return QueueKey(q, "meta") }
