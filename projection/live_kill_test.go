package projection

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// The helper process: when EMQ_PROJECTION_HELPER is set, this test is the
// body of a child process that runs a live projection until it is killed,
// printing a line after each snapshot.
const helperEnv = "EMQ_PROJECTION_HELPER"

func killProjection() Projection[*Numbers] { return Stats("points", "room") }

func TestHelperProcess(t *testing.T) {
	args := os.Getenv(helperEnv)
	if args == "" {
		t.Skip("runs only as the child of TestLiveKillRestart")
	}
	url, queue, _ := strings.Cut(args, " ")
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: url, NodeID: new(900)})
	require.NoError(t, err)
	cfg := &LiveConfig{
		Store:         EngineStore(c, queue, "killed"),
		SnapshotEvery: 25,
		OnSnapshot: func(_ Checkpoint, applied int64) {
			fmt.Printf("SNAPSHOT %d\n", applied)
		},
	}
	l, err := NewLive(killProjection(), cfg, c.Stream(queue, "a"), c.Stream(queue, "b"))
	require.NoError(t, err)
	require.NoError(t, l.Run(context.Background())) // until SIGKILL
}

// TestLiveKillRestart kills (SIGKILL) a child process while its Run follows
// two streams that are being appended to, restarts from its last snapshot in
// this process, and ends with the state of a rebuild, having folded only
// what the snapshot did not hold.
func TestLiveKillRestart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a, c := b.stream("a"), b.stream("b")
	appendN(t, b.ctx, 100, a, c)

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+b.url+" "+b.queue)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	snapshots := make(chan int64, 1000)
	go func() {
		defer close(snapshots)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if n, ok := strings.CutPrefix(sc.Text(), "SNAPSHOT "); ok {
				v, _ := strconv.ParseInt(n, 10, 64)
				snapshots <- v
			}
		}
	}()
	require.Equal(t, int64(100), echomqtest.Recv(t, snapshots, 60*time.Second, "the child's first snapshot"), "the child caught up and saved")

	// Append while the child follows; kill it once it has saved live
	// snapshots, with appends still in flight.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s := []*echomq.Stream{a, c}[i%2]
			if _, err := s.Append(b.ctx, echomq.F("room", "r"+strconv.Itoa(i%4), "points", strconv.Itoa(i%600)), nil); err != nil {
				t.Error(err) // not require: this is not the test goroutine
				return
			}
		}
	})
	for v := range snapshots {
		if v >= 200 {
			break
		}
	}
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	close(stop)
	wg.Wait()
	for range snapshots { // drain what the child printed before dying
	}

	l, err := NewLive(killProjection(), &LiveConfig{Store: EngineStore(b.client, b.queue, "killed")}, a, c)
	require.NoError(t, err)
	start, err := l.Open(b.ctx)
	require.NoError(t, err)
	require.Equal(t, StartResumed, start)
	resumed := l.Applied()
	require.GreaterOrEqual(t, resumed, int64(200))
	n, err := l.CatchUp(b.ctx)
	require.NoError(t, err)
	total := len(readAll(t, b.ctx, a)) + len(readAll(t, b.ctx, c))
	require.Equal(t, total, int(resumed)+n, "the restart folds exactly what the snapshot lacked")
	t.Logf("total %d, resumed from a snapshot of %d, folded %d after the restart", total, resumed, n)

	got, _, err := l.State(b.ctx)
	require.NoError(t, err)
	want, err := Fold(b.ctx, All, killProjection(), a, c)
	require.NoError(t, err)
	require.Equal(t, want, got)
	_, err = l.Rebuild(b.ctx)
	require.NoError(t, err)
	rebuilt, _, err := l.State(b.ctx)
	require.NoError(t, err)
	require.Equal(t, got, rebuilt)
}
