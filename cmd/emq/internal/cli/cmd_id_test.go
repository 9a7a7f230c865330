package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIDGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.note("the published vectors")
	b.step("id", "decode", "EVT000xY9Wvvcd", "USR0KHTOWnGLuC")
	b.step("id", "decode", "1704117200000-1620567")
	b.step("--json", "id", "decode", "EVT000xY9Wvvcd", "JOB0KHTOWnGLuC")
	b.step("id", "encode", "USR", "274557032793636864")
	b.step("--json", "id", "encode", "EVT", "209715200001620567")
	b.note("minting at the clock's millisecond with the node id given (or injected)")
	b.step("id", "new", "EVT")
	minted := b.step("id", "new", "PLR", "-n", "3", "--node", "5")
	b.note("ids on stdin, as from a pipe")
	b.stdin = minted
	b.step("id", "decode")
	b.stdin = "EVT000xY9Wvvcd\n  USR0KHTOWnGLuC\n"
	b.step("id", "decode", "-")
	b.golden("id")
}

func TestIDNewLeased(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Without a node id, id new leases one from the engine.
	opts := b.options()
	opts.NodeID = nil
	var out, errb strings.Builder
	code := Run(t.Context(), []string{"--url", b.url, "id", "new", "GAM", "-n", "2"}, nil, &out, &errb, opts)
	require.Equal(t, ExitOK, code, errb.String())
	lines := strings.Fields(out.String())
	require.Len(t, lines, 2)
	require.True(t, strings.HasPrefix(lines[0], "GAM") && lines[0] < lines[1], lines)
}

func TestHelp(t *testing.T) {
	t.Parallel()
	b := setupEmbedded(t)
	for _, args := range [][]string{{"--help"}, {}, {"id"}, {"help", "read"}, {"read", "--help"}} {
		out, errs, code := b.run(args...)
		require.Equal(t, ExitOK, code, "%v: %s", args, errs)
		require.Empty(t, errs, args)
		require.NotEmpty(t, out, args)
	}
	out := b.must("--help")
	require.Contains(t, out, "Exit codes:")
	require.Contains(t, out, "nothing survives between two invocations")
}
