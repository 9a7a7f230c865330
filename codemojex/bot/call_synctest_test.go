package bot

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/stretchr/testify/require"
)

// The tests of this file run the bot's retry and rate-limit pacing in a
// testing/synctest bubble, with Bot API calls that are functions (no
// network), so each wait is pinned on the bubble's fake clock where a
// real-time test could only bound it from below.

// callTimes runs b.call with fn and returns when, since the start, each
// attempt was made, and the call's error.
func callTimes(ctx context.Context, b *Bot, fn func(ctx context.Context, attempt int) error) ([]time.Duration, error) {
	start := time.Now()
	var at []time.Duration
	err := b.call(ctx, 1, "answerCallbackQuery", func(ctx context.Context) error {
		at = append(at, time.Since(start))
		return fn(ctx, len(at))
	})
	return at, err
}

// badGateway answers a call with a 502, as the status client records it.
func badGateway(ctx context.Context) error {
	*ctx.Value(statusKey{}).(*int) = http.StatusBadGateway
	return errors.New("bad gateway")
}

// TestCallBackoffSchedule: a call failing with a 5xx is retried
// Config.Retries times, after a backoff doubling from Config.Backoff up to
// Config.MaxBackoff: 500ms, 1s, 2s, then the 3s cap.
func TestCallBackoffSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := &Bot{cfg: Config{Retries: 4, Backoff: 500 * time.Millisecond, MaxBackoff: 3 * time.Second}, lim: newLimits(1000, 1000, 100)}
		at, err := callTimes(t.Context(), b, func(ctx context.Context, _ int) error { return badGateway(ctx) })
		ae, ok := errors.AsType[*APIError](err)
		require.True(t, ok, "%v", err)
		require.Equal(t, http.StatusBadGateway, ae.Status)
		require.Equal(t, []time.Duration{0, 500 * time.Millisecond, 1500 * time.Millisecond, 3500 * time.Millisecond, 6500 * time.Millisecond}, at,
			"the first attempt and four retries")

		// A success ends the retries at once.
		at, err = callTimes(t.Context(), b, func(ctx context.Context, n int) error {
			if n < 3 {
				return badGateway(ctx)
			}
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, []time.Duration{0, 500 * time.Millisecond, 1500 * time.Millisecond}, at)
	})
}

// TestCallRetryAfter: a 429 is retried after its retry_after, not the
// backoff; a context ending during the wait ends the call then, with no
// further attempt.
func TestCallRetryAfter(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := &Bot{cfg: Config{Retries: 5, Backoff: 500 * time.Millisecond, MaxBackoff: time.Minute}, lim: newLimits(1000, 1000, 100)}
		at, err := callTimes(t.Context(), b, func(_ context.Context, n int) error {
			if n == 1 {
				return &tgbot.TooManyRequestsError{Message: "Too Many Requests: retry after 7", RetryAfter: 7}
			}
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, []time.Duration{0, 7 * time.Second}, at, "retry_after honoured exactly")

		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		start := time.Now()
		at, err = callTimes(ctx, b, func(context.Context, int) error {
			return &tgbot.TooManyRequestsError{Message: "Too Many Requests: retry after 7", RetryAfter: 7}
		})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Equal(t, []time.Duration{0}, at, "no attempt after the context ended")
		require.Equal(t, 3*time.Second, time.Since(start), "the call ends with its context, not after retry_after")
	})
}

// TestLimitsSchedule: a chat gets its burst at once and then one call per
// 1/ChatRate; other chats are not held by it; the global limit spaces all
// calls; and a chat's limiter idle for more than a minute is dropped at the
// next sweep, not before.
func TestLimitsSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		waits := func(l *limits, chats ...int64) []time.Duration {
			start := time.Now()
			var at []time.Duration
			for _, c := range chats {
				require.NoError(t, l.wait(t.Context(), c))
				at = append(at, time.Since(start))
			}
			return at
		}

		// One chat at 1/s, burst 3; plenty of global room.
		l := newLimits(1000, 1, 3)
		require.Equal(t, []time.Duration{0, 0, 0, time.Second, 2 * time.Second}, waits(l, 7, 7, 7, 7, 7))
		require.Equal(t, []time.Duration{0}, waits(l, 8), "another chat has a burst of its own")

		// The global limit at 2/s (burst 2) over calls without a chat.
		g := newLimits(2, 1000, 1000)
		require.Equal(t, []time.Duration{0, 0, 500 * time.Millisecond, time.Second}, waits(g, 0, 0, 0, 0))

		// Idle limiters: chat 1 used at 0, chat 3 at 30s.
		d := newLimits(1000, 1, 3)
		chats := func() []int64 { return slices.Sorted(maps.Keys(d.chats)) }
		waits(d, 1)
		time.Sleep(30 * time.Second) // sleep: the bubble's clock: to 30s
		waits(d, 3)
		time.Sleep(30 * time.Second) // sleep: the bubble's clock: to 60s, a minute since the last sweep
		waits(d, 2)
		require.Equal(t, []int64{1, 2, 3}, chats(), "a minute exactly is not yet more than a minute")
		time.Sleep(time.Nanosecond) // sleep: the bubble's clock: just past the minute
		waits(d, 4)
		require.Equal(t, []int64{2, 3, 4}, chats(), "chat 1, idle for just over a minute, dropped; chat 3 (30s) kept")
	})
}
