package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
)

// goldenDir compares the transcript with testdata/<name>.golden, showing
// the archive directory dir as DIR.
func (b *bundle) goldenDir(name, dir string) {
	b.t.Helper()
	compareGolden(b.t, name, strings.ReplaceAll(b.normalize(b.tr.String()), dir, "DIR"))
}

// delCache deletes stream's watermark cache, as if the engine lost it.
func (b *bundle) delCache(stream string) {
	b.t.Helper()
	c, err := echomq.Connect(b.t.Context(), &echomq.Config{URL: b.url})
	require.NoError(b.t, err)
	defer c.Close()
	_, err = archive.ClearWatermark(b.t.Context(), c.Stream(b.queue, stream))
	require.NoError(b.t, err)
}

func TestArchiveGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := t.TempDir()
	b.seed("orders", 0, 8)
	b.note("nothing archived yet: status shows the live stream only")
	b.step("archive", "status", "orders", "--store", dir)
	b.note("one cycle with maxlen 3: the 5 oldest are archived, the 3 newest stay live")
	b.step("archive", "run", "orders", "--policy", "maxlen 3", "--store", dir)
	b.step("archive", "status", "orders", "--store", dir)
	b.step("--json", "archive", "status", "orders", "--store", dir)
	b.step("read", "orders")
	b.note("merged reads: all 8 in order, with where each came from")
	b.step("archive", "read", "orders", "--store", dir)
	b.step("read", "orders", "--merged", "--store", dir, "--from", "2025-06-01T12:00:03Z", "--to", "2025-06-01T12:00:05Z")
	b.step("--json", "archive", "read", "orders", "--store", dir, "--reverse", "-n", "4")
	b.note("a cycle with nothing to fold; then a time policy (the clock reads 12:00:07)")
	b.step("archive", "run", "orders", "--policy", "maxlen 3", "--store", dir)
	b.step("--json", "archive", "run", "orders", "--policy", "ago 1s", "--store", dir)
	b.note("the watermark cache lost from the engine: reported, then restored from the manifest")
	b.delCache("orders")
	b.step("archive", "status", "orders", "--store", dir)
	b.step("archive", "run", "orders", "--policy", "ago 1s", "--store", dir)
	b.note("several streams of several queues in one store")
	b.at(8*time.Second).must("--queue", b.queue+"-b", "append", "pays", "k=v")
	b.must("--queue", b.queue+"-b", "archive", "run", "pays", "--policy", "maxlen 0", "--store", dir)
	b.step("archive", "ls", "--store", dir)
	b.step("--json", "archive", "ls", b.queue+"-b", "--store", dir)
	b.note("not found: a stream neither archived nor live, a missing store directory")
	b.step("archive", "status", "missing", "--store", dir)
	b.step("archive", "read", "orders", "--store", dir+"/nope")
	b.step("archive", "read", "missing", "--store", dir)
	b.goldenDir("archive", dir)
}

func TestArchiveEveryGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := t.TempDir()
	b.seed("orders", 0, 4)
	b.note("--every keeps archiving; --cycles stops it (the second cycle finds nothing to fold)")
	b.step("archive", "run", "orders", "--policy", "maxlen 1", "--every", "5ms", "--cycles", "2", "--store", dir)
	b.step("--json", "archive", "run", "orders", "--policy", "maxlen 0", "--every", "5ms", "--cycles", "1", "--store", dir)
	b.goldenDir("archive_every", dir)
}

// archive run --every runs until interrupted and exits 0.
func TestArchiveEveryUntilCancelled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := t.TempDir()
	b.seed("orders", 0, 3)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		_, code := b.runCtx(ctx, out, "archive", "run", "orders", "--policy", "maxlen 0", "--every", "5ms", "--store", dir)
		done <- code
	}()
	require.Eventually(t, func() bool { return strings.Count(out.String(), "\n") >= 3 }, 10*time.Second, 5*time.Millisecond)
	cancel()
	require.Equal(t, ExitOK, echomqtest.Recv(t, done, 30*time.Second, "the archiver to exit when interrupted"))
	require.Contains(t, b.must("archive", "status", "orders", "--store", dir), "entries     3")
}

func TestArchiveBadArguments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := t.TempDir()
	store := []string{"--store", dir}
	requireUsage(t, b, []usageCase{
		{"unknown subcommand", []string{"archive", "bogus"}},
		{"run without stream", []string{"archive", "run", "--policy", "maxlen 1"}},
		{"run without policy", []string{"archive", "run", "s"}},
		{"run bad policy", []string{"archive", "run", "s", "--policy", "maxlen x"}},
		{"run negative policy", []string{"archive", "run", "s", "--policy", "maxlen -1"}},
		{"run policy with stream", []string{"archive", "run", "s", "--policy", "s maxlen 1"}},
		{"run bad stream", []string{"archive", "run", "a:b", "--policy", "maxlen 1"}},
		{"run zero every", []string{"archive", "run", "s", "--policy", "maxlen 1", "--every", "0s"}},
		{"run cycles without every", []string{"archive", "run", "s", "--policy", "maxlen 1", "--cycles", "1"}},
		{"run negative cycles", []string{"archive", "run", "s", "--policy", "maxlen 1", "--every", "1s", "--cycles=-1"}},
		{"store and s3", []string{"archive", "run", "s", "--policy", "maxlen 1", "--store", dir, "--s3", "http://127.0.0.1:1/b"}},
		{"empty store", []string{"archive", "status", "s", "--store", ""}},
		{"empty s3", []string{"archive", "status", "s", "--s3", ""}},
		{"s3 of another scheme", []string{"archive", "run", "s", "--policy", "maxlen 1", "--s3", "ftp://127.0.0.1:1/b"}},
		{"s3 without bucket", []string{"archive", "ls", "--s3", "http://127.0.0.1:1"}},
		{"s3 without host", []string{"archive", "ls", "--s3", "http:///b"}},
		{"s3 with keys", []string{"archive", "ls", "--s3", "http://k:secret@127.0.0.1:1/b"}},
		{"s3 unknown parameter", []string{"archive", "ls", "--s3", "http://127.0.0.1:1/b?acl=x"}},
		{"s3 bad prefix", []string{"archive", "ls", "--s3", "http://127.0.0.1:1/b/.hidden"}},
		{"s3 not a URL", []string{"archive", "ls", "--s3", "http://[::1"}},
		{"status without stream", append([]string{"archive", "status"}, store...)},
		{"status bad stream", append([]string{"archive", "status", "a/b"}, store...)},
		{"ls two queues", append([]string{"archive", "ls", "q1", "q2"}, store...)},
		{"ls bad queue", append([]string{"archive", "ls", "a{b}"}, store...)},
		{"read bad bound", append([]string{"archive", "read", "s", "--from", "yesterday"}, store...)},
		{"read inverted range", append([]string{"archive", "read", "s", "--from", "+5m", "--to", "-5m"}, store...)},
		{"read negative count", append([]string{"archive", "read", "s", "-n", "-1"}, store...)},
		{"read store without merged", []string{"read", "s", "--store", dir}},
		{"read s3 without merged", []string{"read", "s", "--s3", "http://127.0.0.1:1/b"}},
		{"read merged bad s3", []string{"read", "s", "--merged", "--s3", "s3://127.0.0.1:1/b"}},
		{"read merged bad bound", []string{"read", "s", "--merged", "--from", "x"}},
	})
	t.Cleanup(func() {
		// Nothing was created: no default store, nothing in the given one.
		if _, err := os.Stat(defaultStoreDir); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v)", defaultStoreDir, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			t.Errorf("%s is not empty: %v", dir, ents)
		}
	})
}

func TestArchiveStoreFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seed("orders", 0, 3)
	// The store is a file: the cycle fails before any trim (exit 1).
	file := t.TempDir() + "/file"
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	out, errs, code := b.run("archive", "run", "orders", "--policy", "maxlen 0", "--store", file)
	require.Equal(t, ExitError, code, errs)
	require.Empty(t, out)
	require.Equal(t, 1, strings.Count(errs, "\n"), errs)
	require.Contains(t, b.must("--json", "info", "orders"), `"length":3`)
}

func TestProgressBar(t *testing.T) {
	t.Parallel()
	require.Nil(t, newProgressBar(&bytes.Buffer{}), "no bar off a terminal")
	var buf bytes.Buffer
	p := &progressBar{w: &buf}
	p.callback()(archive.Progress{Op: "archive", Queue: "q", Stream: "s", Done: 50, Total: 100, Segments: 1, Bytes: 1536})
	require.Equal(t, "\r\033[Karchive q/s ["+strings.Repeat("█", 15)+strings.Repeat("·", 15)+"] 50/100 entries, 1 segment, 1.5 KiB", buf.String())
	p.clear()
	require.True(t, strings.HasSuffix(buf.String(), "\r\033[K"))
	require.Equal(t, "3.0 MiB", fmtBytes(3<<20))
	require.Equal(t, "12 B", fmtBytes(12))
}
