package lanes_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/rawcmd"
)

// The multi-process tests re-run this test binary as worker processes
// (TestHelperProcess); the environment says what the child does.
const (
	helperEnv   = "EMQ_LANES_HELPER" // the child's mode: order, hold, crash
	helperURL   = "EMQ_LANES_URL"
	helperQueue = "EMQ_LANES_QUEUE"
	helperFail  = "EMQ_LANES_FAIL" // order: probability that a run fails
	helperLease = "EMQ_LANES_LEASE"
)

// recordKey is the test's own list of what the workers did on lane, on the
// queue's hash tag.
func recordKey(queue, lane string) string { return "t:{" + queue + "}:rec:" + lane }

// TestHelperProcess is a worker process of the multi-process tests; run on
// its own it does nothing.
func TestHelperProcess(t *testing.T) {
	t.Parallel()
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("a worker process of the multi-process tests")
	}
	if err := runHelper(mode); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runHelper(mode string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: os.Getenv(helperURL), Notice: io.Discard})
	if err != nil {
		return err
	}
	defer client.Close()
	name := os.Getenv(helperQueue)
	q, err := lanes.New(client, name, nil)
	if err != nil {
		return err
	}
	failP, _ := strconv.ParseFloat(os.Getenv(helperFail), 64)
	record := func(ctx context.Context, job *lanes.Job) error {
		lane, i, _ := strings.Cut(string(job.Payload), ":")
		_, err := rawcmd.Do(ctx, client, "RPUSH", recordKey(name, lane), i+"#"+strconv.Itoa(job.Attempt))
		return err
	}
	var out sync.Mutex
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		switch mode {
		case "order":
			if rand.Float64() < failP {
				return errors.New("random failure")
			}
		case "hold":
			out.Lock()
			fmt.Printf("holding %s\n", job.Payload)
			out.Unlock()
			<-ctx.Done()
			return ctx.Err()
		case "crash":
			if string(job.Payload) == "poison:0" {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
		}
		return record(ctx, job)
	})
	lease, _ := time.ParseDuration(os.Getenv(helperLease))
	w, err := lanes.NewWorker(q, h, fastWorker(lanes.WorkerConfig{
		Concurrency: 8, Lease: lease, Heartbeat: lease / 4, Backoff: lanes.Jitter(lanes.Fixed(10 * time.Millisecond)),
	}))
	if err != nil {
		return err
	}
	return w.Run(ctx)
}

// child is one worker process.
type child struct {
	cmd    *exec.Cmd
	lines  chan string // its stdout, line by line
	stderr bytes.Buffer
	done   chan struct{}
}

func spawn(t *testing.T, mode, url, queue string, lease time.Duration, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperURL+"="+url, helperQueue+"="+queue,
		helperLease+"="+lease.String())
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	c := &child{cmd: cmd, lines: make(chan string, 64), done: make(chan struct{})}
	cmd.Stderr = &c.stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		_ = cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.kill(t)
		if t.Failed() && c.stderr.Len() > 0 {
			t.Logf("worker process %d stderr:\n%s", cmd.Process.Pid, c.stderr.String())
		}
	})
	return c
}

func (c *child) kill(t testing.TB) {
	t.Helper()
	_ = c.cmd.Process.Kill()
	echomqtest.Recv(t, c.done, 30*time.Second, "the worker process to die of SIGKILL")
}

func (c *child) terminate(t *testing.T) {
	t.Helper()
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	echomqtest.Recv(t, c.done, 30*time.Second, "the worker process to exit on SIGTERM")
}

// records returns what the workers recorded on lane: "<index>#<attempt>".
func records(t *testing.T, q *lanes.Queue, lane string) []string {
	t.Helper()
	return doStrings(t, q.Client(), "LRANGE", recordKey(q.Name(), lane), "0", "-1")
}

// TestOrderAcrossProcesses: 50 lanes × 200 jobs, 4 worker processes and
// handlers that fail at random: every lane's jobs complete in enqueue
// order.
func TestOrderAcrossProcesses(t *testing.T) {
	t.Parallel()
	q := setup(t, &lanes.Config{MaxAttempts: 50})
	const lanesN, perLane = 50, 200
	var reqs []lanes.Request
	for i := range perLane {
		for l := range lanesN {
			reqs = append(reqs, lanes.Request{Lane: fmt.Sprintf("L%02d", l), Payload: fmt.Appendf(nil, "L%02d:%d", l, i)})
		}
	}
	for len(reqs) > 0 {
		n := min(len(reqs), 1000)
		res, err := q.EnqueueBatch(ctx, reqs[:n])
		require.NoError(t, err)
		for _, r := range res {
			require.NoError(t, r.Err)
		}
		reqs = reqs[n:]
	}
	url := echomqtest.Shared(t).URL()
	var children []*child
	for range 4 {
		children = append(children, spawn(t, "order", url, q.Name(), 2*time.Second, helperFail+"=0.1"))
	}
	st := eventuallyWithin(t, q, 90*time.Second, func(s lanes.Stats) bool { return s.Completed == lanesN*perLane })
	for _, c := range children {
		c.terminate(t)
	}
	t.Logf("stats: %+v", st)
	require.Positive(t, st.Failed, "handlers failed at random")
	require.Zero(t, st.Dead)

	for l := range lanesN {
		lane := fmt.Sprintf("L%02d", l)
		var got []int
		for _, r := range records(t, q, lane) {
			i, _, _ := strings.Cut(r, "#")
			n, err := strconv.Atoi(i)
			require.NoError(t, err)
			// At least once: a run that completed but lost its lease may be
			// recorded twice in a row, never out of order.
			if len(got) > 0 && got[len(got)-1] == n {
				continue
			}
			got = append(got, n)
		}
		want := make([]int, perLane)
		for i := range want {
			want[i] = i
		}
		require.Equal(t, want, got, "lane %s ran out of order", lane)
	}
	recount(t, q)
}

// TestKilledWorkerJobsReturnToHead: SIGKILL a worker process holding jobs;
// after their lease they return to the head of their lanes and complete.
func TestKilledWorkerJobsReturnToHead(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	for i := range 3 {
		enqueue(t, q, "A", fmt.Sprintf("A:%d", i))
	}
	for i := range 2 {
		enqueue(t, q, "B", fmt.Sprintf("B:%d", i))
	}
	c := spawn(t, "hold", echomqtest.Shared(t).URL(), q.Name(), 300*time.Millisecond)
	held := map[string]bool{echomqtest.Recv(t, c.lines, 20*time.Second, "a held job"): true, echomqtest.Recv(t, c.lines, 20*time.Second, "a second held job"): true}
	require.Equal(t, map[string]bool{"holding A:0": true, "holding B:0": true}, held)
	c.kill(t)

	var mu sync.Mutex
	ran := map[string][]string{}
	h := lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		lane, i, _ := strings.Cut(string(job.Payload), ":")
		mu.Lock()
		ran[lane] = append(ran[lane], i+"#"+strconv.Itoa(job.Attempt))
		mu.Unlock()
		return nil
	})
	startWorker(t, q, h, fastWorker(lanes.WorkerConfig{Concurrency: 4}))
	st := eventually(t, q, func(s lanes.Stats) bool { return s.Completed == 5 })
	require.Equal(t, int64(2), st.Reaped)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, map[string][]string{"A": {"0#2", "1#1", "2#1"}, "B": {"0#2", "1#1"}}, ran)
}

// TestCrashingJobDies: a job that kills its worker process on every run
// dies after its max attempts instead of cycling for ever, and its lane
// moves on.
func TestCrashingJobDies(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	poison, err := q.Enqueue(ctx, "C", []byte("poison:0"), &lanes.EnqueueOpts{MaxAttempts: 3})
	require.NoError(t, err)
	enqueue(t, q, "C", "C:1")
	url := echomqtest.Shared(t).URL()

	crashes := 0
	for {
		require.LessOrEqual(t, crashes, 3, "the poison job kept crashing workers")
		c := spawn(t, "crash", url, q.Name(), 300*time.Millisecond)
		crashed := false
		var st lanes.Stats
		echomqtest.WaitFor(t, time.Minute, "the worker process to crash, or the poison job to die and C:1 to complete", func() bool {
			select {
			case <-c.done:
				crashed = true
				return true
			default:
			}
			var err error
			st, err = q.Stats(ctx)
			return err == nil && st.Completed == 1 && st.Dead == 1
		})
		if crashed {
			crashes++
			continue
		}
		c.terminate(t)
		t.Logf("crashes: %d, stats: %+v", crashes, st)
		break
	}
	require.Equal(t, 3, crashes)
	info, err := q.Job(ctx, poison)
	require.NoError(t, err)
	require.Equal(t, lanes.StateDead, info.State)
	require.Equal(t, "lease expired", info.LastError)
	require.Equal(t, 3, info.Attempts)
	require.Equal(t, 3, info.Stalls)
	require.Equal(t, []string{"1#1"}, records(t, q, "C"))
}
