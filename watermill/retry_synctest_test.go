package watermill

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// TestRetrySchedule: in a testing/synctest bubble (the operation is a
// function: no engine), retry calls again after 10ms, doubling to the 500ms
// cap, while the failure is transient; it stops at once on a permanent
// one, and when its context ends it returns the last failure then.
func TestRetrySchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		down := &echomq.TransportError{Err: errors.New("connection refused")}
		perm := &echomq.ServerError{Prefix: "WRONGTYPE", Message: "WRONGTYPE x"}
		run := func(ctx context.Context, fail func(n int) error) ([]time.Duration, error) {
			start := time.Now()
			var at []time.Duration
			err := retry(ctx, func(context.Context) error {
				at = append(at, time.Since(start))
				return fail(len(at))
			})
			return at, err
		}
		ms := time.Millisecond

		at, err := run(t.Context(), func(n int) error {
			if n < 9 {
				return down
			}
			return nil
		})
		require.NoError(t, err)
		// Waits of 10, 20, 40, 80, 160, 320, then 500 (the cap), 500.
		require.Equal(t, []time.Duration{0, 10 * ms, 30 * ms, 70 * ms, 150 * ms, 310 * ms, 630 * ms, 1130 * ms, 1630 * ms}, at)

		at, err = run(t.Context(), func(n int) error {
			if n < 3 {
				return down
			}
			return perm
		})
		require.ErrorIs(t, err, perm)
		require.Equal(t, []time.Duration{0, 10 * ms, 30 * ms}, at, "a permanent failure is not retried")

		ctx, cancel := context.WithTimeout(t.Context(), 100*ms)
		defer cancel()
		start := time.Now()
		at, err = run(ctx, func(int) error { return down })
		require.ErrorIs(t, err, down, "the last failure, not the context's error")
		require.Equal(t, []time.Duration{0, 10 * ms, 30 * ms, 70 * ms}, at)
		require.Equal(t, 100*ms, time.Since(start), "retry returns when its context ends")
	})
}
