package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// segmentFiles returns the segment files of stream in the archive dir,
// sorted (by first id).
func segmentFiles(t *testing.T, dir, queue, stream string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "queue="+queue, "stream="+stream, "segments", "*.parquet"))
	require.NoError(t, err)
	return files
}

// TestArchiveVerify: a sound archive verifies (exit 0); a flipped byte in
// one segment and a truncated other are both reported with the entries
// they hold, the merged read fails loudly, and both exit 1, never 2; a
// corrupt manifest is reported; a stream without archive exits 3.
func TestArchiveVerify(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := t.TempDir()
	b.seed("orders", 0, 6)
	b.must("archive", "run", "orders", "--policy", "maxlen 3", "--store", dir) // segment 1: 3 entries
	b.seed("orders", 10*time.Second, 3)
	b.must("archive", "run", "orders", "--policy", "maxlen 0", "--store", dir) // segment 2: 6 entries
	b.seed("pays", 20*time.Second, 2)
	b.must("archive", "run", "pays", "--policy", "maxlen 0", "--store", dir)

	out := b.must("archive", "verify", "--store", dir)
	require.Contains(t, out, "orders")
	require.Contains(t, out, "pays")
	require.Equal(t, 0, strings.Count(out, "bad "), out)

	segs := segmentFiles(t, dir, b.queue, "orders")
	require.Len(t, segs, 2)
	raw, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	raw[len(raw)/2] ^= 0xFF
	require.NoError(t, os.WriteFile(segs[0], raw, 0o644))
	raw, err = os.ReadFile(segs[1])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(segs[1], raw[:len(raw)-10], 0o644))

	out, errs, code := b.run("archive", "verify", "orders", "--store", dir)
	require.Equal(t, ExitError, code, "stdout %s stderr %s", out, errs)
	require.Contains(t, out, "bad queue="+b.queue+"/stream=orders/segments/"+filepath.Base(segs[0])+": 3 entries ")
	require.Contains(t, out, "checksum mismatch")
	require.Contains(t, out, ": 3 entries ")
	require.Contains(t, out, "truncated")
	require.Contains(t, out, ": 6 entries ")
	require.Contains(t, errs, "hold bad data")

	out, _, code = b.run("--json", "archive", "verify", "--store", dir)
	require.Equal(t, ExitError, code)
	var docs []verifyDoc
	require.NoError(t, json.Unmarshal([]byte(out), &docs))
	require.Len(t, docs, 2)
	require.False(t, docs[0].OK)
	require.Len(t, docs[0].Bad, 2)
	require.True(t, docs[1].OK, "pays is untouched")

	_, errs, code = b.run("archive", "read", "orders", "--store", dir)
	require.Equal(t, ExitError, code, errs)
	require.Contains(t, errs, "corrupt")
	_, errs, code = b.run("read", "orders", "--merged", "--store", dir, "--to", "2025-06-01T12:00:01Z")
	require.Equal(t, ExitError, code, errs)
	require.Contains(t, errs, filepath.Base(segs[0]))

	mans, err := filepath.Glob(filepath.Join(dir, "queue="+b.queue, "stream=pays", "manifests", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, mans)
	m, err := os.ReadFile(mans[len(mans)-1])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(mans[len(mans)-1], []byte(strings.Replace(string(m), `"entries": 2`, `"entries": 3`, 1)), 0o644))
	out, _, code = b.run("archive", "verify", "pays", "--store", dir)
	require.Equal(t, ExitError, code)
	require.Contains(t, out, "manifest corrupt")
	require.Contains(t, out, "checksum mismatch")

	_, _, code = b.run("archive", "verify", "nothing", "--store", dir)
	require.Equal(t, ExitNotFound, code)
	_, _, code = b.run("archive", "verify", "bad:name", "--store", dir)
	require.Equal(t, ExitUsage, code)
}
