package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

func TestRetentionGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := t.TempDir()
	b.seed("orders", 0, 6)
	b.seed("logs", 0, 3)
	b.note("the clock reads 12:00:02; ago 1s drops what was minted before 12:00:01")
	b.step("retention", "apply", "--policy", "orders ago 1s exact", "--policy", b.queue+"/logs maxlen 1 exact")
	b.note("approximate trims remove whole nodes only: none on a small stream")
	b.step("--json", "retention", "apply", "--policy", "orders maxlen 1")
	b.step("retention", "apply", "--policy", "orders ago 7d")
	b.note("a stream under archive control is refused; the other policies still apply (exit 1)")
	b.must("archive", "run", "logs", "--policy", "maxlen 0", "--store", dir)
	b.step("retention", "apply", "--policy", "logs maxlen 0 exact", "--policy", "orders maxlen 3 exact")
	b.step("retention", "run", "--policy", "logs ago 1s")
	b.note("the driver sweeps on its tick; rows for the policies that removed something")
	b.at(6*time.Second).must("append", "orders", "late=1")
	b.step("retention", "run", "--policy", "orders maxlen 2 exact", "--tick", "5ms", "--sweeps", "2")
	b.step("--json", "retention", "run", "--policy", "orders maxlen 1 exact", "--tick", "5ms", "--sweeps", "1")
	b.step("read", "orders")
	b.goldenDir("retention", dir)
}

// retention run runs until interrupted and exits 0.
func TestRetentionRunUntilCancelled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seed("orders", 0, 3)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		_, code := b.runCtx(ctx, out, "retention", "run", "--policy", "orders maxlen 1 exact", "--tick", "5ms")
		done <- code
	}()
	require.Eventually(t, func() bool { return strings.Count(out.String(), "\n") >= 2 }, 10*time.Second, 5*time.Millisecond)
	b.must("append", "orders", "late=1")
	require.Eventually(t, func() bool { return strings.Count(out.String(), "\n") >= 3 }, 10*time.Second, 5*time.Millisecond)
	cancel()
	require.Equal(t, ExitOK, echomqtest.Recv(t, done, 30*time.Second, "the retention driver to exit when interrupted"))
	require.Contains(t, b.must("--json", "info", "orders"), `"length":1`)
}

func TestRetentionBadArguments(t *testing.T) {
	t.Parallel()
	requireUsage(t, setup(t), []usageCase{
		{"unknown subcommand", []string{"retention", "bogus"}},
		{"apply without policy", []string{"retention", "apply"}},
		{"apply with argument", []string{"retention", "apply", "s", "--policy", "s maxlen 1"}},
		{"policy without rule", []string{"retention", "apply", "--policy", "s"}},
		{"bad length", []string{"retention", "apply", "--policy", "s maxlen x"}},
		{"negative length", []string{"retention", "apply", "--policy", "s maxlen -1"}},
		{"bad age", []string{"retention", "apply", "--policy", "s ago soon"}},
		{"bad instant", []string{"retention", "apply", "--policy", "s minid yesterday"}},
		{"bad mode", []string{"retention", "apply", "--policy", "s maxlen 1 roughly"}},
		{"unknown kind", []string{"retention", "apply", "--policy", "s keep 1"}},
		{"bad stream", []string{"retention", "apply", "--policy", "a:b maxlen 1"}},
		{"bad queue", []string{"retention", "apply", "--policy", "a{b}/s maxlen 1"}},
		{"stream twice", []string{"retention", "apply", "--policy", "s maxlen 1", "--policy", "s ago 1h"}},
		{"run without policy", []string{"retention", "run"}},
		{"run zero tick", []string{"retention", "run", "--policy", "s maxlen 1", "--tick", "0s"}},
		{"run bad tick", []string{"retention", "run", "--policy", "s maxlen 1", "--tick", "often"}},
		{"run negative sweeps", []string{"retention", "run", "--policy", "s maxlen 1", "--sweeps=-1"}},
	})
}
