package cli

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTailGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed("orders", 0, 4)
	b.step("tail", "orders")
	b.step("tail", "orders", "-n", "2")
	b.step("tail", "orders", "--from", ids[2])
	b.step("--json", "tail", "orders", "-n", "1")
	b.step("tail", "orders", "-n", "0")
	b.golden("tail")
}

func TestTailFollowGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"text", []string{"tail", "orders", "-f", "-n", "1"}},
		{"json", []string{"--json", "tail", "orders", "-f", "-n", "1"}},
		{"from", []string{"tail", "orders", "--follow", "--from", "2025-06-01T12:00:01Z"}},
		{"new_only", []string{"tail", "orders", "-f", "-n", "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.seed("orders", 0, 2)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			c := b.background(ctx, tc.args...)
			// The follower prints what it has, then waits; appends made after
			// that must show up, and nothing else.
			head := map[string]int{"text": 2, "json": 1, "from": 2, "new_only": 1}[tc.name]
			require.Eventually(t, func() bool { return c.lines() >= head }, 10*time.Second, 5*time.Millisecond)
			for i, at := range []time.Duration{10 * time.Second, 11 * time.Second} {
				b.at(at).must("append", "orders", "late="+string(rune('1'+i)))
			}
			require.Eventually(t, func() bool { return c.lines() >= head+2 }, 10*time.Second, 5*time.Millisecond)
			cancel()
			r := c.wait(t)
			require.Equal(t, ExitOK, r.code, r.stderr)
			b.record(tc.args, c.out.String(), r.stderr, r.code)
			b.golden("tail_follow_" + tc.name)
		})
	}
}
