package watermill

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

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
		// Waits of 10, 20, 40, 80, 160, 320, then 500 (the cap), 500.
		check(t, "until it succeeds", err, nil, at, []time.Duration{0, 10 * ms, 30 * ms, 70 * ms, 150 * ms, 310 * ms, 630 * ms, 1130 * ms, 1630 * ms})

		at, err = run(t.Context(), func(n int) error {
			if n < 3 {
				return down
			}
			return perm
		})
		check(t, "a permanent failure is not retried", err, perm, at, []time.Duration{0, 10 * ms, 30 * ms})

		ctx, cancel := context.WithTimeout(t.Context(), 100*ms)
		defer cancel()
		start := time.Now()
		at, err = run(ctx, func(int) error { return down })
		check(t, "the context ends: the last failure, not the context's error", err, down, at, []time.Duration{0, 10 * ms, 30 * ms, 70 * ms})
		if d := time.Since(start); d != 100*ms {
			t.Errorf("retry returned %v after the start, want 100ms: when its context ends", d)
		}
	})
}

// check compares retry's error and attempt times with the wanted ones.
func check(t *testing.T, what string, err, wantErr error, at, want []time.Duration) {
	t.Helper()
	if !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
		t.Errorf("%s: err = %v, want %v", what, err, wantErr)
	}
	if !slices.Equal(at, want) {
		t.Errorf("%s: attempts at %v, want %v", what, at, want)
	}
}
