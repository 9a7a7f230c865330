package lanes_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

// soak drives q with random verbs from several goroutines: enqueues (some
// delayed, some duplicates), claims, every kind of settle, abandoned leases,
// sweeps, pauses, limits and dead-job retries and deletes.
func soak(t *testing.T, q *lanes.Queue, goroutines, ops int, seed uint64) {
	t.Helper()
	var idsMu sync.Mutex
	var ids []echomq.ID
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			if err := soakOne(q, rand.New(rand.NewPCG(seed, uint64(g))), ops, &idsMu, &ids); err != nil {
				errs <- fmt.Errorf("goroutine %d: %w", g, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func soakOne(q *lanes.Queue, r *rand.Rand, ops int, idsMu *sync.Mutex, ids *[]echomq.ID) error {
	var held []*lanes.Job
	lane := func() string { return fmt.Sprintf("lane-%d", r.IntN(12)) }
	ok := func(err error, allowed ...error) error {
		if err == nil {
			return nil
		}
		for _, a := range allowed {
			if errors.Is(err, a) {
				return nil
			}
		}
		return err
	}
	for range ops {
		var err error
		switch p := r.IntN(100); {
		case p < 22:
			opts := &lanes.EnqueueOpts{MaxAttempts: 1 + r.IntN(3)}
			if r.IntN(10) == 0 {
				opts.Delay = time.Duration(r.IntN(40)) * time.Millisecond
			}
			idsMu.Lock()
			if len(*ids) > 0 && r.IntN(20) == 0 {
				opts.ID = (*ids)[r.IntN(len(*ids))]
			}
			idsMu.Unlock()
			var id echomq.ID
			id, err = q.Enqueue(ctx, lane(), []byte("x"), opts)
			if err == nil {
				idsMu.Lock()
				*ids = append(*ids, id)
				idsMu.Unlock()
			}
			err = ok(err, lanes.ErrDuplicate)
		case p < 50:
			var jobs []*lanes.Job
			jobs, err = q.Claim(ctx, 1+r.IntN(5), time.Duration(40+r.IntN(160))*time.Millisecond)
			held = append(held, jobs...)
		case p < 80:
			if len(held) == 0 {
				continue
			}
			i := r.IntN(len(held))
			j := held[i]
			held = append(held[:i], held[i+1:]...)
			switch s := r.IntN(20); {
			case s < 10:
				err = q.Complete(ctx, j)
			case s < 17:
				_, err = q.Fail(ctx, j, time.Duration(r.IntN(30))*time.Millisecond, errors.New("soak"))
			case s < 18:
				err = q.Kill(ctx, j, errors.New("soak kill"))
			case s < 19:
				err = q.Release(ctx, j)
			default: // abandoned: its lease lapses
			}
			err = ok(err, lanes.ErrLeaseLost, lanes.ErrNotFound)
		case p < 86:
			_, err = q.Sweep(ctx)
		case p < 89:
			if r.IntN(2) == 0 {
				_, err = q.PauseLane(ctx, lane())
			} else {
				_, err = q.ResumeLane(ctx, lane())
			}
		case p < 91:
			_, err = q.SetLaneLimit(ctx, lane(), r.IntN(4))
		case p < 95:
			var dead []lanes.JobSummary
			if dead, err = q.Dead(ctx, 0, 5); err == nil && len(dead) > 0 {
				id := dead[r.IntN(len(dead))].ID
				if r.IntN(3) == 0 {
					err = q.DeleteDead(ctx, id)
				} else {
					err = q.RetryDead(ctx, id)
				}
				err = ok(err, lanes.ErrNotFound, lanes.ErrWrongState)
			}
		case p < 98:
			if len(held) > 0 {
				_, err = q.Extend(ctx, time.Duration(40+r.IntN(160))*time.Millisecond, held...)
			}
		default:
			if r.IntN(2) == 0 {
				_, err = q.Pause(ctx)
			} else {
				_, err = q.Resume(ctx)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// TestCountsEqualRecount: after a randomized soak, the counts per state
// equal a recount from the keys; after every job is drained, too.
func TestCountsEqualRecount(t *testing.T) {
	t.Parallel()
	q := setup(t, &lanes.Config{Tombstone: time.Hour})
	soak(t, q, 4, 600, uint64(time.Now().UnixNano()))
	st := recount(t, q)
	t.Logf("after the soak: %+v", st)
	require.Positive(t, st.Enqueued)

	// Drain: resume everything and let a worker finish every job.
	_, err := q.Resume(ctx)
	require.NoError(t, err)
	for i := range 12 {
		_, err := q.ResumeLane(ctx, fmt.Sprintf("lane-%d", i))
		require.NoError(t, err)
	}
	startWorker(t, q, lanes.HandlerFunc(func(context.Context, *lanes.Job) error { return nil }),
		fastWorker(lanes.WorkerConfig{Concurrency: 8}))
	eventually(t, q, func(s lanes.Stats) bool {
		return s.Waiting+s.Active+s.Delayed+s.Backoff == 0
	})
	st = recount(t, q)
	t.Logf("drained: %+v", st)
	require.Equal(t, st.Enqueued, st.Completed+st.Dead+st.Deleted)
}
