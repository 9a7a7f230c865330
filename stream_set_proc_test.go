package echomq_test

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

const setHelperEnv = "EMQ_SET_HELPER"

// TestSetHelperProcess is not a test: it is the body of a child process
// that follows and consumes every stream of queue EMQ_SET_QUEUE whose name
// starts with "g", writing "<pid> <stream> <entry>" lines to
// EMQ_SET_DIR/follow.log and group.log before each event is checkpointed
// or acknowledged. The follower's checkpoint lives in EMQ_SET_DIR/cp
// (replaced atomically every 25 events, five events behind). SIGTERM stops it.
func TestSetHelperProcess(t *testing.T) {
	t.Parallel()
	if os.Getenv(setHelperEnv) != "1" {
		t.Skip("runs only as a child process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: os.Getenv("EMQ_SET_URL")})
	if err != nil && ctx.Err() != nil {
		return // SIGTERM while connecting: a graceful stop before anything was taken
	}
	require.NoError(t, err)
	defer client.Close()
	dir, q := os.Getenv("EMQ_SET_DIR"), os.Getenv("EMQ_SET_QUEUE")
	pid := strconv.Itoa(os.Getpid())
	open := func(name string) *os.File {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		return f
	}
	flog, glog := open("follow.log"), open("group.log")
	defer flog.Close()
	defer glog.Close()
	set := client.StreamsPrefix(q, "g")
	// Generous: a writer goroutine stalled longer than this between minting
	// and sending on a loaded machine would make its entry late (counted,
	// out of order) once its stream had gone idle.
	settle := 5 * time.Second

	sc, err := client.SetConsumer(&echomq.SetConsumerConfig{
		Set: set, Group: "all", Name: "worker", Start: echomq.StartHead, Settle: settle, Discover: 200 * time.Millisecond,
		Beat: 100 * time.Millisecond, MinIdle: time.Minute,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Handle: func(_ context.Context, d echomq.Delivery) error {
			_, err := glog.WriteString(pid + " " + d.Stream + " " + d.Entry.String() + "\n")
			return err
		},
	})
	require.NoError(t, err)
	require.NoError(t, sc.Start(ctx))

	cpFile := filepath.Join(dir, "cp")
	var from echomq.Checkpoint
	if b, err := os.ReadFile(cpFile); err == nil {
		from, err = echomq.ParseCheckpoint(string(b))
		require.NoError(t, err)
	}
	f, err := set.Follower(&echomq.SetFollowOpts{From: from, Start: echomq.StartHead, Settle: settle, Discover: 200 * time.Millisecond})
	require.NoError(t, err)
	n, lagged := 0, echomq.Checkpoint{}
	for ev, err := range f.Follow(ctx) {
		if err != nil {
			continue
		}
		_, err = flog.WriteString(pid + " " + ev.Stream + " " + ev.Entry.String() + "\n")
		require.NoError(t, err)
		// The checkpoint saved lags the log by five events, as a lazy
		// checkpointer's would: a restart repeats at least those.
		switch n++; n % 25 {
		case 20:
			lagged = f.Checkpoint()
		case 0:
			tmp := cpFile + ".tmp"
			require.NoError(t, os.WriteFile(tmp, []byte(lagged.String()), 0o644))
			require.NoError(t, os.Rename(tmp, cpFile))
		}
	}
	require.NoError(t, sc.Stop(context.Background()))
}

func spawnSetHelper(t *testing.T, url, q, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), setHelperEnv+"=1", "EMQ_SET_URL="+url, "EMQ_SET_QUEUE="+q, "EMQ_SET_DIR="+dir)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	c := &child{cmd: cmd, out: out, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.done) }()
	t.Cleanup(func() { c.kill(t) })
	return c
}

type logLine struct{ pid, key string }

func readLog(t *testing.T, path string) []logLine {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), " ", 3)
		if len(parts) != 3 {
			continue // a line cut by the SIGKILL
		}
		out = append(out, logLine{parts[0], parts[1] + "/" + parts[2]})
	}
	return out
}

func distinctKeys(lines []logLine) int {
	m := map[string]bool{}
	for _, l := range lines {
		m[l.key] = true
	}
	return len(m)
}

// checkMergedLog checks a log of several process runs against the raw
// merge: within each run entries come in strictly increasing merged order,
// and the log with repeats removed is the merge itself (no loss, no
// reordering beyond redelivery after the crash).
func checkMergedLog(t *testing.T, what string, lines []logLine, want []string) {
	t.Helper()
	pos := make(map[string]int, len(want))
	for i, k := range want {
		pos[k] = i
	}
	last := map[string]int{}
	var dedup []string
	seen := map[string]bool{}
	for i, l := range lines {
		p, ok := pos[l.key]
		require.True(t, ok, "%s line %d: %s is not in the streams", what, i, l.key)
		if prev, ok := last[l.pid]; ok && p <= prev {
			for j := max(i-12, 0); j <= i; j++ {
				t.Logf("line %d pid %s %s at %d", j, lines[j].pid, lines[j].key, pos[lines[j].key])
			}
			for j := max(p-3, 0); j <= prev+1; j++ {
				t.Logf("want %d %s", j, want[j])
			}
		}
		if prev, ok := last[l.pid]; ok {
			require.Greater(t, p, prev, "%s line %d: %s out of order within run %s", what, i, l.key, l.pid)
		}
		last[l.pid] = p
		if !seen[l.key] {
			seen[l.key] = true
			dedup = append(dedup, l.key)
		}
	}
	require.Equal(t, want, dedup, "%s: every entry, in merged order", what)
}

// TestSetKillRestartManyStreams is the acceptance of many-stream reads: 20
// streams with 4 writers each, followed and consumed (one group across all
// of them) by a child process that is killed with SIGKILL mid-run and
// restarted; a 21st stream is created after the restart. Both logs hold
// every entry, in the order of a merge of raw XRANGEs, with repeats only
// where the crash made them.
func TestSetKillRestartManyStreams(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	url := echomqtest.Shared(t).URL()
	c := connect(t, echomq.Config{URL: url})
	q := echomqtest.Queue(t)
	dir := t.TempDir()
	names := streamNames("g", 20)
	const perWriter = 150

	var wg sync.WaitGroup
	write := func(ns []string) {
		wg.Go(func() { ; writeStreams(t, c, q, ns, 4, perWriter) })
	}
	write(names)
	proc := spawnSetHelper(t, url, q, dir)
	waitFor(t, "the child is under way", func() bool {
		return len(readLog(t, filepath.Join(dir, "follow.log"))) > 1500 && len(readLog(t, filepath.Join(dir, "group.log"))) > 1500
	})
	proc.kill(t)
	cpAtKill, _ := os.ReadFile(filepath.Join(dir, "cp"))
	t.Logf("killed after %d follower lines; saved checkpoint of %d bytes", len(readLog(t, filepath.Join(dir, "follow.log"))), len(cpAtKill))
	proc = spawnSetHelper(t, url, q, dir)
	names = append(names, "g20")
	write(names[20:])
	wg.Wait()
	total := len(names) * 4 * perWriter
	waitAll := func(file string) {
		t.Helper()
		got := 0
		defer func() { // a failed wait ends the test's goroutine: show the child's output
			if got < total {
				t.Logf("%s: %d of %d entries\n%s", file, got, total, proc.out)
			}
		}()
		echomqtest.WaitFor(t, 4*waitTimeout, file+" to hold all "+strconv.Itoa(total)+" entries", func() bool {
			got = distinctKeys(readLog(t, filepath.Join(dir, file)))
			return got >= total
		})
	}
	waitAll("follow.log")
	waitAll("group.log")
	proc.term(t)

	want := rawMerge(t, c, q, names)
	require.Len(t, want, total)
	flines, glines := readLog(t, filepath.Join(dir, "follow.log")), readLog(t, filepath.Join(dir, "group.log"))
	checkMergedLog(t, "follower", flines, want)
	checkMergedLog(t, "group", glines, want)
	runs := func(lines []logLine) int {
		m := map[string]bool{}
		for _, l := range lines {
			m[l.pid] = true
		}
		return len(m)
	}
	require.Equal(t, 2, runs(flines), "the follower ran twice")
	require.Equal(t, 2, runs(glines), "the group consumer ran twice")
	require.Greater(t, len(flines), total, "the follower repeats what followed its checkpoint")
	t.Logf("follower %d lines, group %d lines for %d entries", len(flines), len(glines), total)
	for _, n := range names {
		gi, err := c.Stream(q, n).Group("all").Info(ctx)
		require.NoError(t, err)
		require.Zero(t, gi.Pending, "stream %s: everything acknowledged", n)
	}
}
