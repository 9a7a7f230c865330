package cli

import (
	"testing"
)

func TestTrimGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed("orders", 0, 6)
	b.note("approximate trims remove whole nodes only: none on a small stream")
	b.step("trim", "orders", "--maxlen", "1")
	b.step("trim", "orders", "--maxlen", "4", "--exact")
	b.step("trim", "orders", "--minid", "2025-06-01T12:00:03Z", "--exact")
	b.step("--json", "trim", "orders", "--minid", ids[4], "--exact")
	b.step("trim", "orders", "--minid", "1748779205000-0", "--exact")
	b.step("read", "orders")
	b.step("trim", "missing", "--maxlen", "0", "--exact")
	b.golden("trim")
}
