package codemojex

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

// helperEnv makes the test binary a scoring worker that stops for good at
// a stage of its first job (CODEMOJEX_TEST_HELPER=before|after): inside
// the scoring transaction before it commits, or after the commit before
// the job is acknowledged. It prints "READY <guess>" there, and waits to be
// killed.
const helperEnv = "CODEMOJEX_TEST_HELPER"

func helperMain() int {
	stage := os.Getenv(helperEnv)
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: os.Getenv("CODEMOJEX_TEST_URL"), Notice: io.Discard, Logger: quiet})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	e, err := New(client, &Config{Queue: os.Getenv("CODEMOJEX_TEST_QUEUE"), Logger: quiet})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	stop := func(guess string) {
		fmt.Printf("READY %s\n", guess)
		select {} // until SIGKILL
	}
	switch stage {
	case "before":
		e.setBeforeScore(stop)
	case "after":
		e.setAfterScore(stop)
	default:
		fmt.Fprintln(os.Stderr, "unknown stage", stage)
		return 3
	}
	w, err := e.Worker(&lanes.WorkerConfig{Concurrency: 1, Lease: 500 * time.Millisecond, Heartbeat: 100 * time.Millisecond, Logger: quiet})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	if err := w.Start(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	select {}
}

// startWorkerProcess runs the test binary as a scoring worker that stops at
// stage, and returns once it reports the guess it stopped on, with a func
// that kills it with SIGKILL.
func startWorkerProcess(t *testing.T, url, queue, stage string) (guess string, kill func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+stage, "CODEMOJEX_TEST_URL="+url, "CODEMOJEX_TEST_QUEUE="+queue)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	killed := false
	kill = func() {
		if !killed {
			killed = true
			_ = cmd.Process.Kill() // SIGKILL
			_ = cmd.Wait()
		}
	}
	t.Cleanup(kill)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if g, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				lines <- g
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
		close(lines)
	}()
	select {
	case g, ok := <-lines:
		require.True(t, ok, "the worker process exited before it reached the stage")
		return g, kill
	case <-time.After(30 * time.Second):
		t.Fatal("the worker process did not reach the stage")
	}
	return "", kill
}
