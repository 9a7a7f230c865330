package lanes_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/lanes"
)

// TestLaneKeysShareSlot: every key of a queue's lanes is on the queue's
// slot, whatever the lane name.
func TestLaneKeysShareSlot(t *testing.T) {
	t.Parallel()
	const q = "cm"
	slot := keyspace.Slot(keyspace.QueueKey(q, "x"))
	keys := []string{
		keyspace.JobKey(q, "JOB0000000000001"), keyspace.LaneKey(q, "PLR0KHTOWnGLuC"), keyspace.LaneKey(q, "}{odd{lane}"),
		keyspace.LaneRingKey(q), keyspace.LaneRingSetKey(q), keyspace.LaneActiveKey(q), keyspace.LaneScheduleKey(q),
		keyspace.LaneBackoffKey(q), keyspace.LaneHoldKey(q), keyspace.LaneDeadKey(q), keyspace.LanePausedKey(q),
		keyspace.LaneInFlightKey(q), keyspace.LaneLimitKey(q), keyspace.LanesKey(q), keyspace.LaneStatsKey(q),
		keyspace.LaneSeqKey(q), keyspace.LaneWakeKey(q), keyspace.LaneMetaKey(q),
	}
	for _, k := range keys {
		require.Equal(t, slot, keyspace.Slot(k), k)
		require.True(t, strings.HasPrefix(k, "emq:{"+q+"}:"), k)
	}
}

// TestCluster: the queue works on a 3-master Redis Cluster: every script
// runs on the queue's slot, the workers park on the slot's wake list, and
// per-lane order and the counts hold.
func TestCluster(t *testing.T) {
	t.Parallel()
	cluster := echomqtest.StartCluster(t)
	client := connect(t, cluster.URL())
	q, err := lanes.New(client, echomqtest.Queue(t), nil)
	require.NoError(t, err)

	const lanesN, perLane = 10, 20
	var reqs []lanes.Request
	for i := range perLane {
		for l := range lanesN {
			reqs = append(reqs, lanes.Request{Lane: "PLR" + strconv.Itoa(l), Payload: fmt.Appendf(nil, "%d", i)})
		}
	}
	res, err := q.EnqueueBatch(ctx, reqs)
	require.NoError(t, err)
	for _, r := range res {
		require.NoError(t, r.Err)
	}
	_, err = q.Enqueue(ctx, "PLR0", []byte("later"), &lanes.EnqueueOpts{Delay: 50 * time.Millisecond})
	require.NoError(t, err)
	_, err = q.PauseLane(ctx, "PLR1")
	require.NoError(t, err)

	var mu sync.Mutex
	got := map[string][]string{}
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		if rand.IntN(10) == 0 {
			return errors.New("random failure")
		}
		mu.Lock()
		got[job.Lane] = append(got[job.Lane], string(job.Payload))
		mu.Unlock()
		return nil
	})
	startWorker(t, q, h, fastWorker(lanes.WorkerConfig{Concurrency: 4}))
	eventually(t, q, func(s lanes.Stats) bool { return s.Completed == (lanesN-1)*perLane+1 })
	_, err = q.ResumeLane(ctx, "PLR1")
	require.NoError(t, err)
	st := eventually(t, q, func(s lanes.Stats) bool { return s.Completed == lanesN*perLane+1 })
	require.Zero(t, st.Dead)

	mu.Lock()
	defer mu.Unlock()
	for l := range lanesN {
		lane := "PLR" + strconv.Itoa(l)
		var want []string
		for i := range perLane {
			want = append(want, strconv.Itoa(i))
		}
		if l == 0 {
			// The delayed job became due while the lane was still busy.
			require.Contains(t, got[lane], "later")
			got[lane] = deleteString(got[lane], "later")
		}
		require.Equal(t, want, got[lane], lane)
	}
	recount(t, q)
}

func deleteString(s []string, v string) []string {
	out := s[:0]
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
