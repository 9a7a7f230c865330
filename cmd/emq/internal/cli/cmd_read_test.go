package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seed appends n events to stream, one a second from base+from, and returns
// their ids; the clock is left at the last one.
func (b *bundle) seed(stream string, from time.Duration, n int) []string {
	b.t.Helper()
	ids := make([]string, n)
	for i := range n {
		b.at(from + time.Duration(i)*time.Second)
		ids[i] = strings.TrimSpace(b.must("append", stream, "n="+string(rune('1'+i)), "kind=tick"))
	}
	return ids
}

func TestReadGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed("orders", 0, 5)
	b.step("read", "orders")
	b.step("--json", "read", "orders")
	b.note("bounds: EVT ids, exclusive with (, entry ids, times and relative times")
	b.step("read", "orders", "--from", ids[1], "--to", ids[3])
	b.step("read", "orders", "--from", "("+ids[1], "--to", "("+ids[3])
	b.step("read", "orders", "--from", "2025-06-01T12:00:01Z", "--to", "(2025-06-01T12:00:03Z")
	b.step("read", "orders", "--from", "1748779202000")
	b.step("read", "orders", "--from", "-2s")
	b.note("count and reverse")
	b.step("read", "orders", "-n", "2")
	b.step("read", "orders", "--reverse", "-n", "2")
	b.note("a missing stream is not found (exit 3); an existing one with nothing in the range is an empty table")
	b.step("--json", "read", "missing")
	b.step("--json", "read", "orders", "--from", "2030-01-01")
	b.golden("read")
}

// TestMissingStreamExitCodes: every read of a stream that does not exist
// exits 3 (as info does), while an existing stream read empty exits 0.
func TestMissingStreamExitCodes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seed("orders", 0, 1)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"read", "missing"}, ExitNotFound},
		{[]string{"window", "missing", "-1h", "now"}, ExitNotFound},
		{[]string{"since", "missing", "-1h"}, ExitNotFound},
		{[]string{"tail", "missing"}, ExitNotFound},
		{[]string{"tail", "missing", "--from", "-"}, ExitNotFound},
		{[]string{"info", "missing"}, ExitNotFound},
		{[]string{"--json", "read", "missing"}, ExitNotFound},
		{[]string{"read", "orders", "--from", "2030-01-01"}, ExitOK},
		{[]string{"window", "orders", "2030-01-01", "2030-01-02"}, ExitOK},
		{[]string{"tail", "orders", "-n", "0"}, ExitOK},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			out, stderr, code := b.run(tc.args...)
			require.Equal(t, tc.code, code, stderr)
			if tc.code == ExitNotFound {
				require.Empty(t, out)
				require.Contains(t, stderr, `stream "missing" in queue "`+b.queue+`" not found`)
			}
		})
	}
}

// A following tail of a stream that does not exist yet says so and prints
// the stream's first event when it comes.
func TestTailFollowWaitsForMissingStream(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := b.background(ctx, "tail", "later", "-f")
	require.Eventually(t, func() bool { return strings.Contains(c.out.String(), "FIELDS") }, 20*time.Second, 10*time.Millisecond)
	b.must("append", "later", "first=1")
	require.Eventually(t, func() bool { return strings.Contains(c.out.String(), "first=1") }, 20*time.Second, 10*time.Millisecond)
	cancel()
	r := c.wait(t)
	require.Equal(t, ExitOK, r.code, r.stderr)
	require.Contains(t, r.stderr, `stream "later" in queue "`+b.queue+`" does not exist yet; waiting for its first event`)
}

func TestWindowGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, d := range []time.Duration{-2 * time.Hour, -time.Hour, -30 * time.Minute, 0} {
		b.at(d).must("append", "orders", "at="+d.String())
	}
	b.note("the clock reads 2025-06-01T12:00:00Z")
	b.step("window", "orders", "-1h", "now")
	b.step("window", "orders", "2025-06-01T11:00:00Z", "2025-06-01T11:00:00Z")
	b.step("window", "orders", "now-90m", "now-31m")
	b.step("--json", "window", "orders", "-1h", "-1h")
	b.step("window", "orders", "now", "-1h")
	b.golden("window")
}

func TestSinceGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, d := range []time.Duration{-2 * time.Hour, -time.Hour, -30 * time.Minute, 0} {
		b.at(d).must("append", "orders", "at="+d.String())
	}
	b.step("since", "orders", "-45m")
	b.step("since", "orders", "2025-06-01")
	b.step("--json", "since", "orders", "-1h", "-n", "1")
	b.step("since", "orders", "+1ms")
	b.golden("since")
}
