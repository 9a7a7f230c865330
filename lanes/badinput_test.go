package lanes_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/rawcmd"
)

// queueKeys lists the keys of queue q (KEYS on the queue's hash tag, which
// routes to its slot).
func queueKeys(t *testing.T, c *echomq.Client, q string) []any {
	t.Helper()
	v, err := rawcmd.Do(ctx, c, "KEYS", "emq:{"+q+"}:*")
	require.NoError(t, err)
	keys, _ := v.([]any)
	return keys
}

// TestBadInput: every public verb refuses bad input with a typed error and
// writes nothing.
func TestBadInput(t *testing.T) {
	t.Parallel()
	client := connect(t, echomqtest.Shared(t).URL())
	name := echomqtest.Queue(t)
	q, err := lanes.New(client, name, &lanes.Config{MaxPayload: 16})
	require.NoError(t, err)
	plr := echomq.MustID("PLR", 1)
	job := echomq.MustID(lanes.BrandJob, 1)

	var (
		nameErr *echomq.NameError
		kindErr *echomq.KindError
		argErr  *echomq.ArgumentError
	)
	for _, tc := range []struct {
		name string
		call func() error
		want any
	}{
		{"empty lane", func() error { _, err := q.Enqueue(ctx, "", nil, nil); return err }, &nameErr},
		{"lane with control byte", func() error { _, err := q.Enqueue(ctx, "a\nb", nil, nil); return err }, &nameErr},
		{"lane with DEL", func() error { _, err := q.Enqueue(ctx, "a\x7f", nil, nil); return err }, &nameErr},
		{"lane of invalid UTF-8", func() error { _, err := q.Enqueue(ctx, "a\xffb", nil, nil); return err }, &nameErr},
		{"lane too long", func() error { _, err := q.Enqueue(ctx, strings.Repeat("x", 257), nil, nil); return err }, &nameErr},
		{"non-JOB id", func() error {
			_, err := q.Enqueue(ctx, "L", nil, &lanes.EnqueueOpts{ID: plr})
			return err
		}, &kindErr},
		{"payload over the limit", func() error {
			_, err := q.Enqueue(ctx, "L", bytes.Repeat([]byte("x"), 17), nil)
			return err
		}, &argErr},
		{"negative delay", func() error {
			_, err := q.Enqueue(ctx, "L", nil, &lanes.EnqueueOpts{Delay: -time.Second})
			return err
		}, &argErr},
		{"max attempts out of range", func() error {
			_, err := q.Enqueue(ctx, "L", nil, &lanes.EnqueueOpts{MaxAttempts: -1})
			return err
		}, &argErr},
		{"batch with one bad request", func() error {
			_, err := q.EnqueueBatch(ctx, []lanes.Request{{Lane: "L"}, {Lane: ""}})
			return err
		}, &nameErr},
		{"claim none", func() error { _, err := q.Claim(ctx, 0, time.Minute); return err }, &argErr},
		{"claim too many", func() error { _, err := q.Claim(ctx, lanes.MaxClaim+1, time.Minute); return err }, &argErr},
		{"claim short lease", func() error { _, err := q.Claim(ctx, 1, time.Millisecond); return err }, &argErr},
		{"negative backoff", func() error {
			_, err := q.Fail(ctx, &lanes.Job{ID: job}, -time.Second, nil)
			return err
		}, &argErr},
		{"extend short lease", func() error { _, err := q.Extend(ctx, time.Millisecond, &lanes.Job{ID: job}); return err }, &argErr},
		{"pause empty lane", func() error { _, err := q.PauseLane(ctx, ""); return err }, &nameErr},
		{"resume empty lane", func() error { _, err := q.ResumeLane(ctx, ""); return err }, &nameErr},
		{"negative lane limit", func() error { _, err := q.SetLaneLimit(ctx, "L", -1); return err }, &argErr},
		{"zero default limit", func() error { _, err := q.SetDefaultLaneLimit(ctx, 0); return err }, &argErr},
		{"lane info of empty lane", func() error { _, err := q.Lane(ctx, ""); return err }, &nameErr},
		{"bad cursor", func() error { _, err := q.Lanes(ctx, &lanes.LaneListParams{Cursor: "x"}); return err }, &argErr},
		{"bad count", func() error { _, err := q.Lanes(ctx, &lanes.LaneListParams{Count: -1}); return err }, &argErr},
		{"bad state", func() error { _, err := q.Jobs(ctx, lanes.JobListParams{State: "gone"}); return err }, &argErr},
		{"lane with dead state", func() error {
			_, err := q.Jobs(ctx, lanes.JobListParams{State: lanes.StateDead, Lane: "L"})
			return err
		}, &argErr},
		{"negative offset", func() error { _, err := q.Jobs(ctx, lanes.JobListParams{Offset: -1}); return err }, &argErr},
		{"job of non-JOB id", func() error { _, err := q.Job(ctx, plr); return err }, &kindErr},
		{"retry non-JOB id", func() error { return q.RetryDead(ctx, plr) }, &kindErr},
		{"delete non-JOB id", func() error { return q.DeleteDead(ctx, plr) }, &kindErr},
		{"bad queue name", func() error { _, err := lanes.New(client, "a:b", nil); return err }, &nameErr},
		{"reserved queue name", func() error { _, err := lanes.New(client, "emq", nil); return err }, &nameErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.call()
			require.Error(t, err)
			require.ErrorAs(t, err, tc.want)
		})
	}
	t.Cleanup(func() { require.Empty(t, queueKeys(t, client, name), "bad input wrote nothing") })
}

func TestParseState(t *testing.T) {
	t.Parallel()
	for _, s := range lanes.States {
		got, err := lanes.ParseState(string(s))
		require.NoError(t, err)
		require.Equal(t, s, got)
	}
	_, err := lanes.ParseState("running")
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}

func TestLaneGrammar(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"PLR0KHTOWnGLuC", "a", "user@example.com", "tenant:42", "{braces}", "with space", "émoji 🎯", strings.Repeat("x", 256)} {
		require.NoError(t, lanes.ValidateLane(ok), ok)
	}
	for _, bad := range []string{"", "tab\t", "nul\x00", "\u0085c1", "bad\xc3", strings.Repeat("x", 257)} {
		err := lanes.ValidateLane(bad)
		require.ErrorIs(t, err, echomq.ErrInvalidName, bad)
	}
}
