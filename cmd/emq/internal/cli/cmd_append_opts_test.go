package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// emq append --key: a repeat prints the first receipt and writes nothing.
func TestAppendKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := b.must("append", "--key", "order-17", "orders", "n=1")
	again := b.must("append", "--key", "order-17", "orders", "n=2")
	require.Equal(t, first, again)
	require.Contains(t, b.must("info", "orders"), "length          1")
}

// emq append --expect-top: appends only on the expected top, else exit 1
// naming the actual top.
func TestAppendExpectTop(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := strings.TrimSpace(b.must("append", "--expect-top", "empty", "orders", "n=1"))
	_, stderr, code := b.run("append", "--expect-top", "empty", "orders", "n=x")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "the top is "+first)
	second := strings.TrimSpace(b.must("append", "--expect-top", first, "orders", "n=2"))
	_, stderr, code = b.run("append", "--expect-top", first, "orders", "n=y")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "the top is "+second)
	_, _, code = b.run("append", "--expect-top", "nonsense", "orders", "n=z")
	require.Equal(t, 2, code)
	require.Contains(t, b.must("info", "orders"), "length          2")
}

// --interop and EMQ_INTEROP turn on the version fence.
func TestInteropFlag(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.must("--interop", "append", "orders", "n=1")
	b.env = map[string]string{"EMQ_INTEROP": "true"}
	b.must("append", "orders", "n=2")
	b.env = map[string]string{"EMQ_INTEROP": "maybe"}
	_, _, code := b.run("append", "orders", "n=3")
	require.Equal(t, 2, code)
}
