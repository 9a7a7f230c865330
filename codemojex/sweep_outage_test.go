package codemojex

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A chore failing tick after tick logs its failure once, and its
// recovery once, however long the outage: not a warning every tick.
func TestOutageLogsOncePerOutage(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	o := outage{log: slog.New(slog.NewTextHandler(&buf, nil)), what: "sweep"}
	down := errors.New("transport: dial tcp 127.0.0.1:1: connection refused")
	for range 2 {
		o.note(nil)
		for range 50 {
			o.note(down)
		}
		o.note(nil)
		o.note(nil)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 4, "%s", buf.String())
	require.Contains(t, lines[0], "level=WARN msg=\"codemojex: sweep failed; retrying on each tick, logged again once it recovers\"")
	require.Contains(t, lines[1], "level=INFO msg=\"codemojex: sweep recovered\"")
	require.Contains(t, lines[1], "failed_runs=50")
	require.Contains(t, lines[2], "level=WARN")
	require.Contains(t, lines[3], "level=INFO")
}
