package echomq_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// The writer tests run appenders in child processes (this test binary,
// re-executed into TestAppendHelperProcess), each its own client with its
// own node id, as separate programs sharing a stream would be.
const appendHelperEnv = "EMQ_APPEND_HELPER"

// TestAppendHelperProcess is not a test: it is the body of a writer child
// process, configured by EMQ_AW_* variables. It waits until EMQ_AW_START
// (Unix ms), then appends to EMQ_AW_QUEUE/EMQ_AW_STREAM in mode "serial"
// (one goroutine at full speed), "pipelined" (64 goroutines) or "rate"
// (500 appends/s) for EMQ_AW_FOR, or "key" (one append with idempotency key
// EMQ_AW_KEY). It writes its receipts one per line to EMQ_AW_FILE, then a
// last line "stats <records> <plain> <scripts> <refused> <arbitrated>".
func TestAppendHelperProcess(t *testing.T) {
	t.Parallel()
	if os.Getenv(appendHelperEnv) != "1" {
		t.Skip("runs only as a writer child process")
	}
	node, err := strconv.Atoi(os.Getenv("EMQ_AW_NODE"))
	require.NoError(t, err)
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: os.Getenv("EMQ_AW_URL"), NodeID: new(node)})
	require.NoError(t, err)
	defer client.Close()
	s := client.Stream(os.Getenv("EMQ_AW_QUEUE"), os.Getenv("EMQ_AW_STREAM"))
	start, err := strconv.ParseInt(os.Getenv("EMQ_AW_START"), 10, 64)
	require.NoError(t, err)
	time.Sleep(time.Until(time.UnixMilli(start))) // sleep: every child starts at the same instant
	runFor, _ := time.ParseDuration(os.Getenv("EMQ_AW_FOR"))
	ctx, cancel := context.WithTimeout(context.Background(), runFor+30*time.Second)
	defer cancel()
	deadline := time.Now().Add(runFor)

	var mu sync.Mutex
	var receipts []string
	appendOne := func() error {
		id, err := s.Append(ctx, echomq.F("node", strconv.Itoa(node)), nil)
		if err != nil {
			return err
		}
		mu.Lock()
		receipts = append(receipts, id.String())
		mu.Unlock()
		return nil
	}
	switch mode := os.Getenv("EMQ_AW_MODE"); mode {
	case "serial":
		for time.Now().Before(deadline) {
			require.NoError(t, appendOne())
		}
	case "pipelined":
		untilDeadline(t, 64, deadline, func(int, int) error { return appendOne() })
	case "rate":
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for time.Now().Before(deadline) {
			<-tick.C
			require.NoError(t, appendOne())
		}
	case "key":
		id, err := s.Append(ctx, echomq.F("node", strconv.Itoa(node)), &echomq.AppendOpts{Key: os.Getenv("EMQ_AW_KEY")})
		require.NoError(t, err)
		receipts = append(receipts, id.String())
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	st := echomq.AppendStatsOf(client)
	out := strings.Join(receipts, "\n")
	if out != "" {
		out += "\n"
	}
	out += fmt.Sprintf("stats %d %d %d %d %d\n", st.Records, st.Plain, st.Scripts, st.Refused, st.Arbitrated)
	require.NoError(t, os.WriteFile(os.Getenv("EMQ_AW_FILE"), []byte(out), 0o644))
}

// writerRun is what one writer child reported.
type writerRun struct {
	receipts []echomq.ID
	stats    echomq.AppendStats
}

// runWriters starts one writer child per node (all starting together at
// the same instant) and returns what each reported.
func runWriters(t *testing.T, url, queue, stream, mode string, nodes []int, runFor time.Duration, extra ...string) []writerRun {
	t.Helper()
	start := time.Now().Add(time.Second).UnixMilli() // every child is up by then
	envs := make([][]string, len(nodes))
	for i, n := range nodes {
		envs[i] = append([]string{
			appendHelperEnv + "=1", "EMQ_AW_URL=" + url, "EMQ_AW_QUEUE=" + queue,
			"EMQ_AW_STREAM=" + stream, "EMQ_AW_NODE=" + strconv.Itoa(n), "EMQ_AW_MODE=" + mode,
			"EMQ_AW_FOR=" + runFor.String(), "EMQ_AW_START=" + strconv.FormatInt(start, 10),
		}, extra...)
	}
	runs := make([]writerRun, len(nodes))
	for i, file := range runChildren(t, "TestAppendHelperProcess", "EMQ_AW_FILE", envs) {
		f, err := os.Open(file)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "stats "); ok {
				st := &runs[i].stats
				_, err := fmt.Sscan(rest, &st.Records, &st.Plain, &st.Scripts, &st.Refused, &st.Arbitrated)
				require.NoError(t, err)
				continue
			}
			id, err := echomq.ParseEventID(line)
			require.NoError(t, err)
			runs[i].receipts = append(runs[i].receipts, id)
		}
		require.NoError(t, sc.Err())
		f.Close()
	}
	return runs
}
