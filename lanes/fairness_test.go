package lanes_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// fill enqueues n jobs on lane in batches, payloads "<lane>:<i>".
func fill(t *testing.T, q *lanes.Queue, lane string, n int) {
	t.Helper()
	const batch = 1000
	for from := 0; from < n; from += batch {
		reqs := make([]lanes.Request, 0, batch)
		for i := from; i < min(from+batch, n); i++ {
			reqs = append(reqs, lanes.Request{Lane: lane, Payload: fmt.Appendf(nil, "%s:%d", lane, i)})
		}
		res, err := q.EnqueueBatch(ctx, reqs)
		require.NoError(t, err)
		for _, r := range res {
			require.NoError(t, r.Err)
		}
	}
}

// TestFairnessHeavyLane: a lane with 10 000 queued jobs delays a 1-job lane
// enqueued after it by at most one rotation, counted in claims served
// before it, even when the heavy lane may run all its jobs at once.
func TestFairnessHeavyLane(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	_, err := q.SetDefaultLaneLimit(ctx, 100_000) // no lane is ever at its limit
	require.NoError(t, err)
	fill(t, q, "heavy", 10_000)
	const others = 8
	for i := range others {
		fill(t, q, fmt.Sprintf("small%d", i), 3)
	}
	light := enqueue(t, q, "light", "light:0")

	// One rotation is one claim per servable lane: heavy, the small lanes
	// and light.
	rotation := others + 2
	before := 0
	for {
		j := claimOne(t, q, time.Minute)
		if j.ID == light {
			break
		}
		before++
		require.Less(t, before, rotation, "the light lane waited more than one rotation")
	}
	t.Logf("claims served before the light lane's job: %d (one rotation = %d)", before, rotation)
}

// TestFairnessWorker: the same through a worker pool, with the default
// limit of one job in flight per lane: the light lane's job is among the
// first jobs run.
func TestFairnessWorker(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	fill(t, q, "heavy", 10_000)
	light := enqueue(t, q, "light", "light:0")

	var mu sync.Mutex
	var ran []string
	lightDone := make(chan struct{})
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		mu.Lock()
		ran = append(ran, string(job.Payload))
		mu.Unlock()
		if job.ID == light {
			close(lightDone)
		}
		return nil
	})
	startWorker(t, q, h, fastWorker(lanes.WorkerConfig{Concurrency: 4}))
	echomqtest.Recv(t, lightDone, 60*time.Second, "the light lane's job")
	mu.Lock()
	defer mu.Unlock()
	pos := 0
	for pos < len(ran) && ran[pos] != "light:0" {
		pos++
	}
	// Two servable lanes: the light job is the first or second claim.
	require.Less(t, pos, 2, "runs before the light job: %v", ran[:pos])
}
