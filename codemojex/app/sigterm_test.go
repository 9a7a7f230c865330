package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// TestHelperServeProcess is not a test: TestSIGTERM runs the test binary
// with CODEMOJEX_HELPER_SERVE set, and this runs "codemojex serve" as the
// command does (a signal context, Execute, os.Exit).
func TestHelperServeProcess(t *testing.T) {
	args := os.Getenv("CODEMOJEX_HELPER_SERVE")
	if args == "" {
		t.Skip("helper process")
	}
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		os.Exit(99)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := Execute(ctx, argv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

var servingRe = regexp.MustCompile(`codemojex is serving on (http://\S+)`)

// TestSIGTERM: a codemojex serve process holding a long-poll, a live feed
// and scoring jobs in flight gets SIGTERM: the long-poll is answered at
// once (200, the guess as it stands), the feed ends with a shutdown event,
// the process exits 0 soon after, and no job is left claimed: each running
// job completed, the rest wait in their lanes with their attempts unspent.
func TestSIGTERM(t *testing.T) {
	t.Parallel()
	url, queue := echomqtest.Shared(t).URL(), echomqtest.Queue(t)
	argv, _ := json.Marshal([]string{
		"serve", "--addr", "127.0.0.1:0", "--url", url, "--queue", queue,
		"--dev-signin", "true", "--demo", "true", "--starter-keys", "1000", "--workers", "4", "--log-level", "error",
	})
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServeProcess$")
	cmd.Env = append(os.Environ(), "CODEMOJEX_HELPER_SERVE="+string(argv), "CODEMOJEX_OPERATOR_TOKEN=op")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	var base string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := servingRe.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
	}
	require.NotEmpty(t, base, "the process did not report its address")
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
	})
	s := &served{url: base, queue: queue}

	// The waiting player's lane is paused, so its guess stays queued and
	// its long-poll waits; other players keep the workers busy.
	token, game, kb := s.player(t, "waiter")
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: url, Notice: io.Discard})
	require.NoError(t, err)
	defer c.Close()
	q, err := lanes.New(c, queue, nil)
	require.NoError(t, err)
	code, _, b := s.call(t, "GET", "/api/me", token, nil)
	require.Equal(t, http.StatusOK, code)
	var me struct {
		Player struct{ ID string } `json:"player"`
	}
	require.NoError(t, json.Unmarshal(b, &me))
	_, err = q.PauseLane(context.Background(), me.Player.ID)
	require.NoError(t, err)
	code, _, b = s.call(t, "POST", "/api/games/"+game+"/guess", token, map[string]any{"codes": kb[:6]})
	require.Equal(t, http.StatusAccepted, code, string(b))
	var rc struct {
		Receipt struct{ Guess string } `json:"receipt"`
	}
	require.NoError(t, json.Unmarshal(b, &rc))

	feed := sse(t, base, "127.0.0.1")
	defer feed.Body.Close()
	require.Equal(t, http.StatusOK, feed.StatusCode)
	feedBody := make(chan string, 1)
	go func() { b, _ := io.ReadAll(feed.Body); feedBody <- string(b) }()

	// Busy players: guesses keep arriving until the signal.
	stopLoad := make(chan struct{})
	var load sync.WaitGroup
	for i := range 4 {
		tok, g, k := s.player(t, fmt.Sprintf("busy%d", i))
		load.Go(func() {
			for j := 0; ; j++ {
				select {
				case <-stopLoad:
					return
				default:
				}
				codes := slices.Clone(k)
				codes[0], codes[j%len(codes)] = codes[j%len(codes)], codes[0]
				if _, err := postJSON(base+"/api/games/"+g+"/guess", tok, map[string]any{"codes": codes[:6]}); err != nil {
					return // the server is gone
				}
			}
		})
	}

	polled := make(chan time.Time, 1)
	var pollAnswer string
	go func() {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/guesses/"+rc.Receipt.Guess+"?wait=30s", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			pollAnswer = fmt.Sprintf("%d %s", resp.StatusCode, b)
		} else {
			pollAnswer = err.Error()
		}
		polled <- time.Now()
	}()
	time.Sleep(500 * time.Millisecond) // sleep: load running, long-poll waiting in the child process; no signal crosses to the test
	sent := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	var answeredAt time.Time
	select {
	case answeredAt = <-polled:
	case <-time.After(10 * time.Second):
		t.Fatal("the long-poll was not answered after SIGTERM")
	}
	require.Regexp(t, `^200 .*"status":"queued"`, pollAnswer)
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the process did not exit")
	}
	exitedAt := time.Now()
	close(stopLoad)
	load.Wait()
	if ee, ok := errors.AsType[*exec.ExitError](werr); ok {
		t.Fatalf("exit code %d", ee.ExitCode())
	}
	require.NoError(t, werr, "exit 0")
	require.Contains(t, echomqtest.Recv(t, feedBody, 30*time.Second, "the live feed to end"), "event: shutdown")
	t.Logf("SIGTERM → long-poll answered in %v; process exited %v after the answer",
		answeredAt.Sub(sent).Round(time.Millisecond), exitedAt.Sub(answeredAt).Round(time.Millisecond))
	require.Less(t, exitedAt.Sub(answeredAt), 2*time.Second, "exit within 2 s of the long-poll's answer")

	// No job is left claimed; what did not run waits with no attempt spent.
	active, err := q.Jobs(context.Background(), lanes.JobListParams{State: lanes.StateActive, Limit: lanes.MaxList})
	require.NoError(t, err)
	require.Empty(t, active, "no job is left claimed by the stopped process")
	waiting, err := q.Jobs(context.Background(), lanes.JobListParams{State: lanes.StateWaiting, Limit: lanes.MaxList})
	require.NoError(t, err)
	for _, j := range waiting {
		require.Zero(t, j.Attempts, "job %s waits with its attempt unspent", j.ID)
	}
	stats, err := q.Stats(context.Background())
	require.NoError(t, err)
	t.Logf("after exit: %d jobs waiting (attempts unspent); lanes stats %+v", len(waiting), stats)
	_, _ = q.ResumeLane(context.Background(), me.Player.ID)
}

func postJSON(url, token string, body any) (int, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}
