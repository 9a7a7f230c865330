package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTrimUnderArchive is the scenario of a stream under archive control:
// the watermark at entry 15 of 20, then 10 more appended. "emq trim ev
// --maxlen 0" keeps all 30 (exit 1, nothing removed); forced, it reports
// the 15 unarchived events it destroys.
func TestTrimUnderArchive(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := t.TempDir()
	b.seed("ev", 0, 20)
	b.must("archive", "run", "ev", "--policy", "maxlen 5", "--store", dir)
	b.seed("ev", 30*time.Second, 10)
	merged := func() int {
		var doc struct{ Count int }
		require.NoError(t, json.Unmarshal([]byte(b.must("--json", "archive", "read", "ev", "--store", dir)), &doc))
		return doc.Count
	}
	require.Equal(t, 30, merged())

	for _, args := range [][]string{
		{"trim", "ev", "--maxlen", "0"},
		{"trim", "ev", "--maxlen", "0", "--exact"},
		{"trim", "ev", "--minid", "now", "--exact"},
	} {
		out, errs, code := b.run(args...)
		require.Equal(t, ExitError, code, "%v: %s %s", args, out, errs)
		require.Contains(t, errs, "under archive control")
		require.Contains(t, errs, "force")
	}
	require.Equal(t, 30, merged(), "refused trims keep all 30")

	out := b.must("--json", "trim", "ev", "--maxlen", "0", "--exact", "--force")
	var doc trimDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.EqualValues(t, 15, doc.Removed)
	require.EqualValues(t, 15, doc.Unarchived)
	require.NotNil(t, doc.Watermark)
	require.Equal(t, 15, merged(), "the destroyed 15 are gone; the archive keeps its 15")

	b.seed("ev", 60*time.Second, 3)
	out = b.must("trim", "ev", "--maxlen", "1", "--exact", "--force")
	require.Contains(t, out, "removed 2 events")
	require.Contains(t, out, "destroyed 2 unarchived events (above the archive watermark "+*doc.Watermark+")")

	// The archiver still trims its own stream: a cycle folds and trims.
	b.seed("ev", 90*time.Second, 4)
	b.must("archive", "run", "ev", "--policy", "maxlen 0", "--store", dir)
	require.Contains(t, b.must("info", "ev"), "length")
	require.Equal(t, 20, merged(), "15 archived before, 5 archived now, none live")
}
