package groupcommit

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCommitter: every request gets its own result, batches never exceed
// max, at most flights calls run at once, and nothing deadlocks, for any
// number of flights.
func TestCommitter(t *testing.T) {
	t.Parallel()
	for _, flights := range []int{1, 2, 4} {
		var running, peak, calls atomic.Int64
		c := New(Config[int, int]{Max: 5, Flights: flights, Run: func(_ context.Context, reqs []int) ([]int, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			calls.Add(1)
			if len(reqs) > 5 {
				return nil, errors.New("batch over max")
			}
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond) // sleep: a batch's work takes a while, so batches overlap
			out := make([]int, len(reqs))
			for i, r := range reqs {
				out[i] = r * 2
			}
			return out, nil
		}})
		var wg sync.WaitGroup
		for g := range 32 {
			wg.Go(func() {
				for i := range 200 {
					v := g*1000 + i
					got, err := c.Do(context.Background(), v)
					if err != nil || got != 2*v {
						t.Errorf("flights %d: request %d got %d, %v", flights, v, got, err)
						return
					}
				}
			})
		}
		wg.Wait()
		require.LessOrEqual(t, peak.Load(), int64(flights))
		require.Less(t, calls.Load(), int64(32*200), "requests were batched")
		require.Zero(t, c.inflight)
		require.Empty(t, c.pending)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	c := New(Config[int, int]{Max: 1, Flights: 1, Run: func(context.Context, []int) ([]int, error) {
		t.Fatal("a request on a done ctx ran")
		return nil, nil
	}})
	_, err := c.Do(cancelled, 1)
	require.ErrorIs(t, err, context.Canceled)
}

// TestShortResult: a Run that answers fewer results than requests fails
// every request of the batch instead of leaving one without an answer.
func TestShortResult(t *testing.T) {
	t.Parallel()
	c := New(Config[int, int]{Run: func(context.Context, []int) ([]int, error) { return nil, nil }})
	_, err := c.Do(context.Background(), 1)
	require.ErrorIs(t, err, ErrShortResult)
}
