package cli

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

// tailOutage is how long the engine stays down under a following tail:
// 30s (three times the call timeout that used to end it), or
// $EMQ_FAULT_OUTAGE.
func tailOutage(t *testing.T) time.Duration {
	if v := os.Getenv("EMQ_FAULT_OUTAGE"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		return d
	}
	return 30 * time.Second
}

// A following tail rides out an engine outage as a consumer does: it keeps
// running while the engine is down, says so on stderr, and prints the next
// event appended after the engine is back, nothing skipped or repeated.
func TestTailFollowRidesOutage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"tail", "orders", "-f", "-n", "1"},
		{"follow", "orders"},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			srv := echomqtest.StartPersistent(t)
			b := setup(t)
			b.url = srv.URL()
			b.seed("orders", 0, 1)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			c := b.background(ctx, args...)
			out := c.out
			if args[0] == "tail" {
				require.Eventually(t, func() bool { return c.lines() >= 2 }, 20*time.Second, 10*time.Millisecond)
			} else {
				require.Eventually(t, func() bool { return c.lines() >= 1 }, 20*time.Second, 10*time.Millisecond)
				// The follower has made its first read (a set follows new
				// entries only): it is blocked in it on its engine.
				echomqtest.WaitFor(t, 20*time.Second, "the follower blocked in its first read", func() bool {
					info, err := srv.Info("clients")
					require.NoError(t, err)
					return info["blocked_clients"] != "0"
				})
			}
			before := c.lines()

			outage := tailOutage(t)
			require.NoError(t, srv.Kill())
			select {
			case r := <-c.done:
				t.Fatalf("emq %s ended during the outage: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
			case <-time.After(outage):
			}
			srv.Restart(t)
			b.at(time.Minute).must("append", "orders", "after=outage")
			require.Eventually(t, func() bool { return strings.Contains(out.String(), "after=outage") }, 30*time.Second, 20*time.Millisecond)
			require.Equal(t, before+1, c.lines(), "one new line, nothing repeated: %s", out.String())
			cancel()
			r := c.wait(t)
			require.Equal(t, ExitOK, r.code, r.stderr)
			if outage >= 15*time.Second { // a shorter one may fall inside one blocking read, unseen
				require.Contains(t, r.stderr, "engine unavailable; retrying")
				require.Contains(t, r.stderr, "engine back")
			}
		})
	}
}
