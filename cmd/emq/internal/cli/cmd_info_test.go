package cli

import (
	"testing"
)

func TestInfoGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seed("orders", 0, 3)
	b.step("info", "orders")
	b.step("--json", "info", "orders")
	b.note("an emptied stream still exists and remembers its last id")
	b.must("trim", "orders", "--maxlen", "0", "--exact")
	b.step("info", "orders")
	b.step("--json", "info", "orders")
	b.note("a missing stream exits 3")
	b.step("info", "missing")
	b.step("--json", "info", "missing")
	b.golden("info")
}
