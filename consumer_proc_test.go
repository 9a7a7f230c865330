package echomq_test

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// The failure tests run consumers in child processes (this test binary,
// re-executed into TestConsumerHelperProcess) and kill them for real.
const helperEnv = "EMQ_CONSUMER_HELPER"

// TestConsumerHelperProcess is not a test: it is the body of a consumer
// child process, configured by EMQ_HELPER_* variables. Mode "hold" takes
// entries and never finishes them; mode "record" appends "<pid> <id>" to
// EMQ_HELPER_FILE for each entry, then succeeds. SIGTERM stops it
// gracefully.
func TestConsumerHelperProcess(t *testing.T) {
	t.Parallel()
	if os.Getenv(helperEnv) != "1" {
		t.Skip("runs only as a consumer child process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: os.Getenv("EMQ_HELPER_URL")})
	if err != nil && ctx.Err() != nil {
		return // SIGTERM while connecting: a graceful stop before anything was taken
	}
	require.NoError(t, err)
	defer client.Close()

	var h echomq.HandlerFunc
	switch os.Getenv("EMQ_HELPER_MODE") {
	case "hold":
		h = func(ctx context.Context, _ echomq.Delivery) error { <-ctx.Done(); return ctx.Err() }
	case "record":
		f, err := os.OpenFile(os.Getenv("EMQ_HELPER_FILE"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		defer f.Close()
		pid := strconv.Itoa(os.Getpid())
		h = func(_ context.Context, d echomq.Delivery) error {
			// One write per entry, before the ack: it survives a SIGKILL.
			_, err := f.WriteString(pid + " " + d.ID.String() + "\n")
			return err
		}
	default:
		t.Fatalf("unknown mode %q", os.Getenv("EMQ_HELPER_MODE"))
	}
	minIdle, err := time.ParseDuration(os.Getenv("EMQ_HELPER_MIN_IDLE"))
	require.NoError(t, err)
	c, err := client.Consumer(&echomq.ConsumerConfig{
		Queue: os.Getenv("EMQ_HELPER_QUEUE"), Stream: "events", Group: "g", Name: os.Getenv("EMQ_HELPER_NAME"),
		Start: echomq.StartHead, Handle: h, Beat: 50 * time.Millisecond, MinIdle: minIdle,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	require.NoError(t, err)
	require.NoError(t, c.Run(ctx))
}

// child is one consumer child process.
type child struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

// spawnConsumer starts a consumer child named name in mode ("hold" or
// "record", the latter writing to file).
func spawnConsumer(t *testing.T, e *groupEnv, url, name, mode, file string, minIdle time.Duration) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestConsumerHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "EMQ_HELPER_URL="+url, "EMQ_HELPER_QUEUE="+e.queue,
		"EMQ_HELPER_NAME="+name, "EMQ_HELPER_MODE="+mode, "EMQ_HELPER_FILE="+file, "EMQ_HELPER_MIN_IDLE="+minIdle.String())
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlives the test binary
	require.NoError(t, cmd.Start())
	c := &child{cmd: cmd, out: out, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.done) }()
	t.Cleanup(func() { c.kill(t) })
	return c
}

// kill sends SIGKILL and waits until the process is gone.
func (c *child) kill(t testing.TB) {
	t.Helper()
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	echomqtest.Recv(t, c.done, waitTimeout, "the child process to die of SIGKILL")
}

// term stops the child gracefully and reports its output if it failed.
func (c *child) term(t *testing.T) {
	t.Helper()
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(waitTimeout):
		t.Errorf("child did not stop on SIGTERM:\n%s", c.out)
		c.kill(t)
		return
	}
	// A child still starting has no SIGTERM handler yet and dies of the
	// signal: fine, it had not consumed anything.
	ws, _ := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !c.cmd.ProcessState.Success() && !(ws.Signaled() && ws.Signal() == syscall.SIGTERM) {
		t.Errorf("child %v:\n%s", c.cmd.ProcessState, c.out)
	}
}

func (e *groupEnv) pendingOf(t *testing.T, consumer string) int {
	rows, err := e.stream.Group("g").Pending(ctx, &echomq.PendingOpts{Consumer: consumer, Count: 1 << 20})
	if err != nil {
		return -1
	}
	return len(rows)
}

// TestConsumerChildStoppedWhileStarting: a consumer process sent SIGTERM
// at any moment of its start (before its handler is set, while it
// connects, once it runs) stops cleanly: the soak's restarts stop children
// that have only just started.
func TestConsumerChildStoppedWhileStarting(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	e.create(t, "g")
	for i := range 40 {
		proc := spawnConsumer(t, e, e.url(t), "starting"+itoa(i), "hold", "", time.Minute)
		time.Sleep(time.Duration(i) * 2 * time.Millisecond) // sleep: the moment of the start the signal meets
		proc.term(t)
	}
}

// TestConsumerKillRestart: a consumer process killed with SIGKILL while it
// holds un-acked entries; a restart under the same name drains that backlog
// in mint order before new entries.
func TestConsumerKillRestart(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	e.create(t, "g")
	backlog := e.append(t, 3)
	proc := spawnConsumer(t, e, e.url(t), "worker", "hold", "", time.Minute)
	waitFor(t, "the child holds the backlog", func() bool { return e.pendingOf(t, "worker") == 3 })
	proc.kill(t)
	tail := e.append(t, 1)

	rec := &deliveryLog{}
	cfg := e.cfg("g", "worker", rec.handle)
	cfg.MinIdle = time.Minute // only the drain can bring the backlog back
	startConsumer(t, e.c, cfg)
	waitFor(t, "backlog and tail handled", func() bool { return len(rec.deliveries()) == 4 })
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	got := rec.deliveries()
	for i, id := range append(backlog, tail...) {
		require.Equal(t, id, got[i].ID, "delivery %d", i)
	}
	for _, d := range got[:3] {
		require.Equal(t, int64(2), d.Attempts, "delivered to the dead process, then drained")
	}
	require.Equal(t, int64(1), got[3].Attempts)
}

// TestConsumerPeerTakesOver: a live peer with a small MinIdle takes over
// the entries of a killed consumer that never comes back; the dead
// consumer can be removed only once it owns nothing.
func TestConsumerPeerTakesOver(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	e.create(t, "g")
	ids := e.append(t, 5)
	proc := spawnConsumer(t, e, e.url(t), "doomed", "hold", "", time.Minute)
	waitFor(t, "the child holds the entries", func() bool { return e.pendingOf(t, "doomed") == 5 })
	proc.kill(t)
	_, err := e.stream.Group("g").DeleteConsumer(ctx, "doomed")
	require.ErrorIs(t, err, echomq.ErrConsumerPending, "its pending list is never stranded")

	rec := &deliveryLog{}
	cfg := e.cfg("g", "rescuer", rec.handle)
	cfg.MinIdle = 200 * time.Millisecond
	startConsumer(t, e.c, cfg)
	waitFor(t, "all taken over", func() bool { return len(rec.distinct()) == len(ids) })
	waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
	for _, d := range rec.deliveries() {
		require.Equal(t, int64(2), d.Attempts)
	}
	existed, err := e.stream.Group("g").DeleteConsumer(ctx, "doomed")
	require.NoError(t, err)
	require.True(t, existed)
}
