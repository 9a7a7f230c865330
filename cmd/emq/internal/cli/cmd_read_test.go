package cli

import (
	"strings"
	"testing"
	"time"
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
	b.note("a missing stream reads as empty")
	b.step("--json", "read", "missing")
	b.golden("read")
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
