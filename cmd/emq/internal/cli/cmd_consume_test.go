package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

func TestConsumeGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seed("orders", 0, 3)
	b.note("a group must exist unless --start creates it")
	b.stepConsume("consume", "orders", "g", "--max", "1")
	b.stepConsume("consume", "orders", "g", "--start", "head", "--name", "c1", "--max", "3", "--beat", "20ms")
	b.note("the group resumes after what it acknowledged")
	b.at(10*time.Second).must("append", "orders", "late=1")
	b.stepConsume("--json", "consume", "orders", "g", "--name", "c1", "--max", "1", "--beat", "20ms")
	b.note("the default consumer name is <hostname>-<pid>")
	b.stepConsume("--json", "consume", "orders", "g2", "--start", "head", "--max", "1", "--beat", "20ms")
	b.note("every second delivery fails; a failed entry comes back after --min-idle, delivered once more")
	b.stepConsume("consume", "orders", "retry", "--start", "head", "--name", "c2", "--fail-every", "2",
		"--min-idle", "1s", "--beat", "20ms", "--max", "5")
	compareGolden(t, "consume", strings.ReplaceAll(b.normalize(b.tr.String()), echomq.DefaultConsumerName(), "HOST-PID"))
}

// A consumer runs until its context ends (SIGINT in a process) and then
// exits 0 having acknowledged what it printed.
func TestConsumeUntilCancelled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seed("orders", 0, 2)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := b.background(ctx, "consume", "orders", "g", "--start", "head", "--name", "c1", "--beat", "20ms")
	require.Eventually(t, func() bool { return c.lines() >= 3 }, 10*time.Second, 5*time.Millisecond)
	b.at(10*time.Second).must("append", "orders", "late=1")
	require.Eventually(t, func() bool { return c.lines() >= 4 }, 10*time.Second, 5*time.Millisecond)
	cancel()
	r := c.wait(t)
	require.Equal(t, ExitOK, r.code, r.stderr)
	require.Empty(t, r.stderr)
	require.Contains(t, c.out.String(), "late=1")
	require.Contains(t, b.must("--json", "group", "info", "orders", "g"), `"pending":0,`)
}

func TestConsumeBadArguments(t *testing.T) {
	t.Parallel()
	requireUsage(t, setup(t), []usageCase{
		{"without group", []string{"consume", "s"}},
		{"bad stream", []string{"consume", "a:b", "g", "--start", "new"}},
		{"bad group", []string{"consume", "s", "a b", "--start", "new"}},
		{"bad name", []string{"consume", "s", "g", "--start", "new", "--name", "a b"}},
		{"empty name", []string{"consume", "s", "g", "--start", "new", "--name", ""}},
		{"bad start", []string{"consume", "s", "g", "--start", "tail"}},
		{"zero batch", []string{"consume", "s", "g", "--start", "new", "--batch", "0"}},
		{"zero beat", []string{"consume", "s", "g", "--start", "new", "--beat", "0s"}},
		{"bad beat", []string{"consume", "s", "g", "--start", "new", "--beat", "often"}},
		{"zero min idle", []string{"consume", "s", "g", "--start", "new", "--min-idle", "0s"}},
		{"zero max deliveries", []string{"consume", "s", "g", "--start", "new", "--max-deliveries", "0"}},
		{"negative fail-every", []string{"consume", "s", "g", "--start", "new", "--fail-every=-1"}},
		{"fail and fail-every", []string{"consume", "s", "g", "--start", "new", "--fail", "--fail-every", "2"}},
		{"negative max", []string{"consume", "s", "g", "--start", "new", "--max=-1"}},
	})
}
