package groupcommit

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTimeoutBoundsTheCall: in a testing/synctest bubble (Run is a
// function: no I/O), a call is bounded by exactly Config.Timeout from its
// start (30s by default), and a caller's context ending meanwhile does not
// cut it short.
func TestTimeoutBoundsTheCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		timeout, want time.Duration
	}{
		{5 * time.Second, 5 * time.Second},
		{0, 30 * time.Second},
	} {
		synctest.Test(t, func(t *testing.T) {
			c := New(Config[int, int]{Timeout: tc.timeout, Run: func(ctx context.Context, reqs []int) ([]int, error) {
				<-ctx.Done() // a call that never answers by itself
				return nil, ctx.Err()
			}})
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			start := time.Now()
			_, err := c.Do(ctx, 1)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Equal(t, tc.want, time.Since(start), "the call's own bound, not the caller's (1s)")
		})
	}
}

// TestQueuedCallersShareTheNextCall: with every flight taken, callers
// queue; when the flight ends, the first of them leads the next call and
// carries all the others, so a slow call of 2s costs the queue one more
// call of 2s, not one each. The bubble makes "all queued" certain
// (synctest.Wait) and the two calls' times exact.
func TestQueuedCallersShareTheNextCall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		var calls [][]int
		c := New(Config[int, int]{Flights: 1, Run: func(ctx context.Context, reqs []int) ([]int, error) {
			mu.Lock()
			calls = append(calls, append([]int(nil), reqs...))
			mu.Unlock()
			time.Sleep(2 * time.Second) // sleep: the bubble's clock: a slow call
			return reqs, nil
		}})
		var wg sync.WaitGroup
		got := make([]time.Duration, 6)
		do := func(i int) {
			res, err := c.Do(t.Context(), i)
			if err == nil && res == i {
				got[i] = time.Since(start)
			}
		}
		wg.Go(func() { do(0) })
		synctest.Wait() // the first call is running
		for i := 1; i < 6; i++ {
			wg.Go(func() { do(i) })
		}
		wg.Wait()
		require.Len(t, calls, 2)
		require.Equal(t, []int{0}, calls[0])
		require.ElementsMatch(t, []int{1, 2, 3, 4, 5}, calls[1], "one call for the whole queue")
		require.Equal(t, []time.Duration{2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}, got,
			"each answered with its own result when its call ended")
	})
}
