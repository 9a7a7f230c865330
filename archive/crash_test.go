package archive_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/echomqtest"
)

// crashRounds × len(crashPoints) is the number of crash trials; set
// EMQ_CRASH_ROUNDS for a longer soak.
func crashRounds() int {
	if n, err := strconv.Atoi(os.Getenv("EMQ_CRASH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 3
}

var crashPoints = []string{
	"segment-written",    // after the first segment: an orphan
	"segment-written:2",  // after a later segment of the same cycle
	"manifest-committed", // after the commit point, before the cache
	"watermark-cached",   // after the cache, before the trim
	"trimming",           // while the trim is in flight
	"random",             // anywhere
}

// TestCrashSafety kills a real archiver process with SIGKILL at each step
// of its cycle, in repeated trials, while two writers keep appending; after
// every trial the merged read has no duplicate and no hole, and after the
// last one (and a clean cycle) it equals everything ever appended, exactly
// once each, in order.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := echomqtest.Shared(t)
	c := newClient(t)
	q, name := echomqtest.Queue(t), "crashy"
	dir := t.TempDir()
	store, err := fsstore.New(dir)
	require.NoError(t, err)
	s := c.Stream(q, name)
	rd := archive.NewReader(store, s)

	w := startWriters(t, s)
	kills, trials := 0, 0
	for round := range crashRounds() {
		for _, point := range crashPoints {
			crash := point
			if point == "random" {
				crash = fmt.Sprintf("random:%d", 2000+rand.IntN(40000))
			}
			// A few segments to fold beyond the 20 kept, and at most a few
			// more while the archiver runs: however slow the machine, a
			// cycle's slice stays a few segments long.
			w.allow(80 + 240)
			w.waitFor(80)
			out, killed := runArchiver(t, srv.URL(), q, name, dir, crash)
			trials++
			if killed {
				kills++
			}
			if point != "random" && point != "trimming" {
				require.True(t, killed, "round %d %s: not killed:\n%s", round, crash, out)
				step, n, ok := strings.Cut(point, ":")
				if !ok {
					n = "1"
				}
				require.True(t, strings.HasSuffix(out, "step "+step+" "+n+"\n"), "round %d %s: killed elsewhere:\n%s", round, crash, out)
			}
			checkMerged(t, rd, w.snapshot(), false)
		}
	}
	w.stop()
	out, killed := runArchiver(t, srv.URL(), q, name, dir, "")
	require.False(t, killed, out)
	require.Contains(t, out, "done")
	checkMerged(t, rd, w.snapshot(), true)

	// The orphans the crashes left are collected, and reads stay whole.
	a := newArchiver(t, c, store, nil)
	gc, err := a.GC(ctx, q, name, &archive.GCOpts{MinAge: time.Nanosecond})
	require.NoError(t, err)
	m, err := archive.LoadManifest(ctx, store, q, name)
	require.NoError(t, err)
	segs, err := store.List(ctx, "queue="+q+"/stream="+name+"/segments/")
	require.NoError(t, err)
	require.Len(t, segs, len(m.Segments), "only committed segments remain")
	checkMerged(t, rd, w.snapshot(), true)
	t.Logf("crash trials: %d (%d killed mid-cycle), %d entries appended, %d archived in %d segments, GC removed %d objects",
		trials, kills, len(w.snapshot()), m.Entries, len(m.Segments), len(gc.Deleted))
}

// runArchiver runs one archiver child process and reports its output and
// whether it died of SIGKILL.
func runArchiver(t *testing.T, url, q, name, dir, crash string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "EMQ_ARCHIVE_HELPER=1", "EMQ_URL="+url, "EMQ_QUEUE="+q, "EMQ_STREAM="+name,
		"EMQ_DIR="+dir, "EMQ_CRASH="+crash, "EMQ_KEEP=20")
	out, err := cmd.Output()
	// The context's kill is a SIGKILL too: never count it as the crash.
	require.NoError(t, ctx.Err(), "archiver child (%s) did not finish in 2 minutes:\n%s", crash, out)
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return string(out), true
		}
	}
	require.NoError(t, err, "archiver child (%s):\n%s%s", crash, out, stderrOf(err))
	return string(out), false
}

func stderrOf(err error) string {
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return string(ee.Stderr)
	}
	return ""
}

// checkMerged reads the whole merged log and checks it is strictly
// increasing and holds every id of appended; with exact, nothing else.
func checkMerged(t *testing.T, rd *archive.Reader, appended []echomq.ID, exact bool) {
	t.Helper()
	evs, err := rd.Read(context.Background(), echomq.All, nil)
	require.NoError(t, err)
	got := make(map[echomq.ID]bool, len(evs))
	for i, ev := range evs {
		if i > 0 {
			require.Equal(t, 1, ev.Entry.Compare(evs[i-1].Entry), "merged read not strictly increasing at %d: %s after %s", i, ev.Entry, evs[i-1].Entry)
		}
		got[ev.ID] = true
	}
	for _, id := range appended {
		require.True(t, got[id], "appended %s is missing from the merged read", id)
	}
	if exact {
		require.Len(t, evs, len(appended))
	}
}

// writers append batches from two goroutines and record every receipt,
// up to the limit allow sets.
type writers struct {
	mu      sync.Mutex
	cond    *sync.Cond
	ids     []echomq.ID
	limit   int
	stopped bool
	stopc   chan struct{}
	wg      sync.WaitGroup
	err     error
}

func startWriters(t *testing.T, s *echomq.Stream) *writers {
	w := &writers{stopc: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	for g := range 2 {
		w.wg.Go(func() {
			// Paced (about 400 entries/s in all) so a cycle's slice stays
			// a few segments long.
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-w.stopc:
					return
				case <-tick.C:
				}
				if !w.underLimit() {
					return
				}
				recs := []echomq.Fields{echomq.F("w", strconv.Itoa(g), "i", strconv.Itoa(i)), echomq.F("w", strconv.Itoa(g), "i", strconv.Itoa(i), "x", "y")}
				ids, err := s.AppendBatch(context.Background(), recs, nil)
				w.mu.Lock()
				if err != nil && w.err == nil {
					w.err = err
				}
				w.ids = append(w.ids, ids...)
				w.cond.Broadcast()
				w.mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	t.Cleanup(w.stop)
	return w
}

// allow lets the writers append n more entries than they have so far.
func (w *writers) allow(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.limit = len(w.ids) + n
	w.cond.Broadcast()
}

// underLimit blocks while the writers are at their limit; it reports false
// once they are stopped.
func (w *writers) underLimit() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.ids) >= w.limit && !w.stopped {
		w.cond.Wait()
	}
	return !w.stopped
}

// waitFor blocks until n more entries were appended since the last call.
func (w *writers) waitFor(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	target := len(w.ids) + n
	for len(w.ids) < target && w.err == nil {
		w.cond.Wait()
	}
}

func (w *writers) snapshot() []echomq.ID {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		panic(w.err)
	}
	return append([]echomq.ID(nil), w.ids...)
}

func (w *writers) stop() {
	w.mu.Lock()
	if !w.stopped {
		w.stopped = true
		close(w.stopc)
		w.cond.Broadcast()
	}
	w.mu.Unlock()
	w.wg.Wait()
}
