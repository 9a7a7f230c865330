package lanes_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/rawcmd"
)

func do(t *testing.T, c *echomq.Client, args ...string) any {
	t.Helper()
	v, err := rawcmd.Do(ctx, c, args...)
	require.NoError(t, err)
	return v
}

func doInt(t *testing.T, c *echomq.Client, args ...string) int64 {
	t.Helper()
	n, _ := do(t, c, args...).(int64)
	return n
}

func doStrings(t *testing.T, c *echomq.Client, args ...string) []string {
	t.Helper()
	arr, _ := do(t, c, args...).([]any)
	out := make([]string, len(arr))
	for i, v := range arr {
		out[i], _ = v.(string)
	}
	return out
}

func doHash(t *testing.T, c *echomq.Client, key string) map[string]string {
	t.Helper()
	out := map[string]string{}
	switch v := do(t, c, "HGETALL", key).(type) {
	case map[string]any:
		for k, x := range v {
			out[k], _ = x.(string)
		}
	case []any:
		for i := 0; i+1 < len(v); i += 2 {
			out[v[i].(string)], _ = v[i+1].(string)
		}
	}
	return out
}

// recount rebuilds the counts of queue name from its keys (job rows, the
// state sets, the lanes, the in-flight and lane indexes, the ring) and
// checks them against Stats and against each other.
func recount(t *testing.T, q *lanes.Queue) lanes.Stats {
	t.Helper()
	c, name := q.Client(), q.Name()
	st, err := q.Stats(ctx)
	require.NoError(t, err)

	// Every job row, by state.
	rows := map[lanes.State]int64{}
	var total int64
	for _, k := range doStrings(t, c, "KEYS", keyspace.JobPrefix(name)+"*") {
		f := doHash(t, c, k)
		total++
		rows[lanes.State(f["state"])]++
	}
	require.Equal(t, rows[lanes.StateWaiting], st.Waiting, "waiting rows")
	require.Equal(t, rows[lanes.StateActive], st.Active, "active rows")
	require.Equal(t, rows[lanes.StateDelayed], st.Delayed, "delayed rows")
	require.Equal(t, rows[lanes.StateBackoff], st.Backoff, "backoff rows")
	require.Equal(t, rows[lanes.StateDead], st.Dead, "dead rows")
	require.Equal(t, rows[lanes.StateCompleted], st.Completed, "completed tombstones")
	require.Equal(t, st.Enqueued-st.Deleted, total, "rows")
	require.Equal(t, st.Enqueued, st.Waiting+st.Active+st.Delayed+st.Backoff+st.Dead+st.Completed+st.Deleted, "totals")

	// The state sets.
	require.Equal(t, st.Active, doInt(t, c, "ZCARD", keyspace.LaneActiveKey(name)), "active set")
	require.Equal(t, st.Delayed, doInt(t, c, "ZCARD", keyspace.LaneScheduleKey(name)), "schedule set")
	require.Equal(t, st.Backoff, doInt(t, c, "ZCARD", keyspace.LaneBackoffKey(name)), "backoff set")
	require.Equal(t, st.Dead, doInt(t, c, "ZCARD", keyspace.LaneDeadKey(name)), "dead set")

	// Every lane set holds waiting and backoff jobs only, and the lanes
	// index lists exactly the non-empty lanes.
	var depth int64
	var nonEmpty []string
	for _, k := range doStrings(t, c, "KEYS", keyspace.LanePrefix(name)+"*") {
		lane := strings.TrimPrefix(k, keyspace.LanePrefix(name))
		ids := doStrings(t, c, "ZRANGE", k, "0", "-1")
		for _, id := range ids {
			s := doStrings(t, c, "HMGET", keyspace.JobKey(name, id), "state", "lane")
			require.Contains(t, []string{"waiting", "backoff"}, s[0], "job %s in lane %q", id, lane)
			require.Equal(t, lane, s[1], "job %s in lane %q", id, lane)
		}
		depth += int64(len(ids))
		nonEmpty = append(nonEmpty, lane)
	}
	require.Equal(t, st.Waiting+st.Backoff, depth, "jobs in lanes")
	require.ElementsMatch(t, nonEmpty, doStrings(t, c, "SMEMBERS", keyspace.LanesKey(name)), "lanes index")
	require.Equal(t, int64(len(nonEmpty)), st.Lanes)

	// In-flight counts.
	var inflight int64
	for _, v := range doHash(t, c, keyspace.LaneInFlightKey(name)) {
		n, _ := strconv.ParseInt(v, 10, 64)
		require.Positive(t, n)
		inflight += n
	}
	require.Equal(t, st.Active, inflight, "in flight")
	require.Equal(t, doInt(t, c, "HLEN", keyspace.LaneInFlightKey(name)), st.Busy)

	// The ring mirrors the ring set, without duplicates, and holds every
	// servable lane: one with waiting jobs, below its limit, neither paused
	// nor held (lanes that stopped being servable may linger until a claim
	// meets them).
	ring := doStrings(t, c, "LRANGE", keyspace.LaneRingKey(name), "0", "-1")
	set := doStrings(t, c, "SMEMBERS", keyspace.LaneRingSetKey(name))
	require.ElementsMatch(t, set, ring, "ring and ring set")
	onRing := map[string]bool{}
	for _, l := range ring {
		onRing[l] = true
	}
	inflightOf := doHash(t, c, keyspace.LaneInFlightKey(name))
	limits := doHash(t, c, keyspace.LaneLimitKey(name))
	defaultLimit := int64(st.DefaultLaneLimit)
	for _, lane := range nonEmpty {
		limit := defaultLimit
		if l, ok := limits[lane]; ok {
			limit, _ = strconv.ParseInt(l, 10, 64)
		}
		n, _ := strconv.ParseInt(inflightOf[lane], 10, 64)
		paused := doInt(t, c, "SISMEMBER", keyspace.LanePausedKey(name), lane) == 1
		held := do(t, c, "ZSCORE", keyspace.LaneHoldKey(name), lane) != nil
		if n < limit && !paused && !held {
			require.True(t, onRing[lane], "servable lane %q is not on the ring", lane)
		}
	}
	return st
}
