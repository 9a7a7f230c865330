package echomq_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

const leaseTTL = 3 * time.Second

// TestLeaseLapseStopsMinting: after the engine was paused past the node
// lease's TTL, a process that takes the lapsed node id may mint under it;
// the first client must refuse to mint (ErrNodeLeaseLapsed, matching
// ErrUnavailable) until it holds a lease again, and then mint under its new
// node id.
func TestLeaseLapseStopsMinting(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	quiet := slog.New(slog.DiscardHandler)
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: srv.URL(), NodeLeaseTTL: leaseTTL, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	q := echomqtest.Queue(t)
	s := c.Stream(q, "ev")
	_, err = s.Append(context.Background(), echomq.Fields{"n", "0"}, nil)
	require.NoError(t, err)
	old, err := echomq.NodeIDOf(context.Background(), c, q)
	require.NoError(t, err)

	require.NoError(t, srv.Pause())
	// While the engine is paused past the TTL no renewal can be confirmed:
	// the lease may have lapsed, so nothing is minted, without I/O.
	time.Sleep(leaseTTL + time.Second) // sleep: the pause outlasts the lease
	_, err = c.MintID(context.Background(), q, echomq.BrandEvent)
	require.ErrorIs(t, err, echomq.ErrNodeLeaseLapsed, "no mint under a node another process may hold")
	start := time.Now()
	_, err = s.Append(context.Background(), echomq.Fields{"n", "1"}, nil)
	require.ErrorIs(t, err, echomq.ErrNodeLeaseLapsed)
	require.ErrorIs(t, err, echomq.ErrUnavailable)
	t.Logf("append with a lapsed lease refused after %v", time.Since(start))
	require.NoError(t, srv.Resume())
	// Another process takes the lapsed node id (unless our keeper leased
	// the same one again first).
	other := faultClient(t, srv.URL(), echomq.Config{})
	taken, err := rawcmd.Do(context.Background(), other, "SET", "emq:{"+q+"}:node:"+itoa(old), "other-holder", "NX", "PX", "60000")
	require.NoError(t, err)

	var id echomq.ID
	require.Eventually(t, func() bool {
		id, err = s.Append(context.Background(), echomq.Fields{"n", "2"}, nil)
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "minting resumes under a new lease: %v", err)
	snow, _ := id.EntryID().Snowflake()
	if taken != nil {
		require.NotEqual(t, old, snow.Node(), "the new node id is not the one taken")
	}
	now, err := echomq.NodeIDOf(context.Background(), c, q)
	require.NoError(t, err)
	require.Equal(t, now, snow.Node())
}

// TestConfiguredNodeIgnoresLease: a configured node id has no lease; a
// pause past any TTL changes nothing for it.
func TestConfiguredNodeIgnoresLease(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	c := faultClient(t, srv.URL(), echomq.Config{NodeID: new(42), NodeLeaseTTL: leaseTTL})
	require.NoError(t, srv.Pause())
	time.Sleep(leaseTTL + time.Second) // sleep: the pause outlasts the lease
	require.NoError(t, srv.Resume())
	q := echomqtest.Queue(t)
	id, err := c.Stream(q, "ev").Append(context.Background(), echomq.Fields{"n", "0"}, nil)
	require.NoError(t, err)
	snow, _ := id.EntryID().Snowflake()
	require.Equal(t, 42, snow.Node())
	_, err = c.MintID(context.Background(), q, "JOB")
	require.NoError(t, err)
}

const leaseHelperEnv = "EMQ_LEASE_HELPER"

// TestLeaseHelperProcess is not a test: it is the body of a minting child
// process of TestLeaseLapseTwoProcesses. It appends to EMQ_LH_QUEUE/ev with
// a leased node id (TTL 3s) for EMQ_LH_FOR, ignoring transient failures,
// and writes each receipt to EMQ_LH_FILE.
func TestLeaseHelperProcess(t *testing.T) {
	t.Parallel()
	if os.Getenv(leaseHelperEnv) != "1" {
		t.Skip("runs only as a minting child process")
	}
	quiet := slog.New(slog.DiscardHandler)
	c, err := echomq.Connect(context.Background(), &echomq.Config{
		URL: os.Getenv("EMQ_LH_URL"), NodeLeaseTTL: leaseTTL,
		Logger: quiet, CallTimeout: time.Second,
	})
	require.NoError(t, err)
	defer c.Close()
	s := c.Stream(os.Getenv("EMQ_LH_QUEUE"), "ev")
	runFor, err := time.ParseDuration(os.Getenv("EMQ_LH_FOR"))
	require.NoError(t, err)
	var out strings.Builder
	lapsed := 0
	for deadline := time.Now().Add(runFor); time.Now().Before(deadline); {
		id, err := s.Append(context.Background(), echomq.Fields{"p", os.Getenv("EMQ_LH_NAME")}, nil)
		if err != nil {
			require.ErrorIs(t, err, echomq.ErrUnavailable)
			if errors.Is(err, echomq.ErrNodeLeaseLapsed) {
				lapsed++
			}
			time.Sleep(10 * time.Millisecond) // sleep: the minting child's pace after a refusal
			continue
		}
		out.WriteString(id.String() + "\n")
		time.Sleep(2 * time.Millisecond) // sleep: the minting child's pace
	}
	out.WriteString("lapsed " + strconv.Itoa(lapsed) + "\n")
	require.NoError(t, os.WriteFile(os.Getenv("EMQ_LH_FILE"), []byte(out.String()), 0o644))
}

// TestLeaseLapseTwoProcesses pauses the engine past the node lease TTL
// while two processes mint: no receipt repeats, and no two processes
// minted under one node id in overlapping time.
func TestLeaseLapseTwoProcesses(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	q := echomqtest.Queue(t)
	dir := t.TempDir()
	const runFor = 14 * time.Second
	names := []string{"a", "b"}
	cmds := make([]*exec.Cmd, len(names))
	outs := make([]*syncBuffer, len(names))
	for i, name := range names {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLeaseHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), leaseHelperEnv+"=1", "EMQ_LH_URL="+srv.URL(), "EMQ_LH_QUEUE="+q,
			"EMQ_LH_FOR="+runFor.String(), "EMQ_LH_NAME="+name, "EMQ_LH_FILE="+filepath.Join(dir, name))
		outs[i] = &syncBuffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	time.Sleep(3 * time.Second) // sleep: both children mint a while before the pause
	require.NoError(t, srv.Pause())
	time.Sleep(leaseTTL + 3*time.Second) // sleep: the pause outlasts the lease
	require.NoError(t, srv.Resume())
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "process %s: %s", names[i], outs[i].String())
	}

	// A run is a stretch of one process's receipts under one node id.
	type run struct {
		proc            string
		node            int
		firstMs, lastMs int64
	}
	var runs []run
	seen := map[echomq.ID]bool{}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		t.Logf("process %s: %d receipts, %s", name, len(lines)-1, lines[len(lines)-1])
		for _, line := range lines[:len(lines)-1] {
			id, err := echomq.ParseEventID(line)
			require.NoError(t, err)
			require.False(t, seen[id], "receipt %s repeats", id)
			seen[id] = true
			snow, _ := id.EntryID().Snowflake()
			if snow.Node() == echomq.EngineNode {
				continue // chosen by the engine, unique by its queue's cells, not a lease
			}
			ms := id.Time().UnixMilli()
			if n := len(runs); n > 0 && runs[n-1].proc == name && runs[n-1].node == snow.Node() {
				runs[n-1].lastMs = ms
				continue
			}
			runs = append(runs, run{proc: name, node: snow.Node(), firstMs: ms, lastMs: ms})
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].firstMs < runs[j].firstMs })
	for i, a := range runs {
		t.Logf("process %s minted under node %d from %d to %d", a.proc, a.node, a.firstMs, a.lastMs)
		for _, b := range runs[i+1:] {
			if a.proc != b.proc && a.node == b.node {
				require.True(t, a.lastMs < b.firstMs || b.lastMs < a.firstMs,
					"processes %s and %s minted under node %d in overlapping time", a.proc, b.proc, a.node)
			}
		}
	}
}
