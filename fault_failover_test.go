package echomq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// payload is the field of every failover append: 1 KiB, so a lagging
// replica falls behind by more than the kernel's socket buffers hold.
var payload = strings.Repeat("x", 1024)

// failoverFigures is what one failover under appends measured.
type failoverFigures struct {
	acked, lost, short, failed int
	shortLost                  int // written short of replicas, and gone after the failover
	// gap is the longest time between two appends written (acknowledged,
	// or short of replicas): how long the writers were held up.
	gap time.Duration
	// kinds are the distinct failures and shorts seen, by their text.
	kinds map[string]int
}

// kind counts a failure by its text, ids and addresses aside.
func (f *failoverFigures) kind(err error) {
	if f.kinds == nil {
		f.kinds = map[string]int{}
	}
	if oe, ok := errors.AsType[*echomq.OpError](err); ok {
		err = oe.Err
	}
	msg := err.Error()
	if len(msg) > 70 {
		msg = msg[:70]
	}
	f.kinds[msg]++
}

func (f failoverFigures) String() string {
	return fmt.Sprintf("%d acknowledged, %d lost, %d written but short of replicas (%d of them gone), %d failed (unavailable), longest gap %v; seen: %v",
		f.acked, f.lost, f.short, f.shortLost, f.failed, f.gap.Round(time.Millisecond), f.kinds)
}

// failoverTrials is how many failovers each case runs: 1, or 5 with
// EMQ_FAULTS=full.
func failoverTrials() int {
	if os.Getenv("EMQ_FAULTS") == "full" {
		return 5
	}
	return 1
}

// queueOn returns a queue whose streams live on master.
func queueOn(t *testing.T, c *echomq.Client, cl *echomqtest.Cluster, master *echomqtest.Server) string {
	t.Helper()
	base := echomqtest.Queue(t)
	for i := range 1000 {
		q := fmt.Sprintf("%s.%d", base, i)
		slot, err := rawcmd.Do(ctx, c, "CLUSTER", "KEYSLOT", c.Stream(q, "orders").Key())
		require.NoError(t, err)
		m, err := cl.MasterOf(int(slot.(int64)))
		require.NoError(t, err)
		if m == master {
			return q
		}
	}
	t.Fatalf("no queue on %s", master.Addr())
	return ""
}

// appendThrough appends from 8 goroutines to one stream of q on master
// for a second, runs fault, appends 2 seconds more, and counts what
// the engine still holds of what it acknowledged.
func appendThrough(t *testing.T, c *echomq.Client, q string, durable bool, fault func()) failoverFigures {
	t.Helper()
	s := c.Stream(q, "orders")
	opts := &echomq.AppendOpts{}
	if durable {
		opts.Durable = echomq.Durability{Replicas: 1, Timeout: time.Second}
	}
	var (
		mu    sync.Mutex
		acked []echomq.ID
		short []echomq.ID
		at    []time.Time
		fig   failoverFigures
	)
	actx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for actx.Err() == nil {
				id, err := s.Append(actx, echomq.F("n", payload), opts)
				mu.Lock()
				switch {
				case err == nil:
					acked, at = append(acked, id), append(at, time.Now())
				case errors.Is(err, echomq.ErrNotDurable):
					// Written, but the master has no replica to acknowledge
					// it (the promoted one has none until the old master is
					// back): the writers resumed all the same.
					fig.kind(err)
					if de, ok := errors.AsType[*echomq.DurabilityError](err); ok {
						short = append(short, de.Receipts...)
					}
					at = append(at, time.Now())
				case actx.Err() != nil:
				case errors.Is(err, echomq.ErrUnavailable):
					fig.failed++
					fig.kind(err)
				default:
					fig.failed++
					t.Errorf("append: %v (not ErrUnavailable)", err)
				}
				mu.Unlock()
				if err != nil && actx.Err() == nil {
					time.Sleep(20 * time.Millisecond) // sleep: a writer's pace after a failed append
				}
			}
		})
	}
	defer func() { stop(); wg.Wait() }() // also when the wait below fails

	time.Sleep(time.Second) // sleep: the writers append a second before the fault
	fault()
	began := time.Now()
	// Run on until the writers have appended for a second after the fault
	// is over (the cluster serves again), or give up after 30s.
	resumed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(at) > 0 && at[len(at)-1].After(began)
	}
	echomqtest.WaitFor(t, 30*time.Second, "the writers to resume by themselves after the fault", resumed)
	time.Sleep(time.Second) // sleep: the writers append a second more
	stop()
	wg.Wait()
	require.NotEmpty(t, acked)
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(at); i++ {
		fig.gap = max(fig.gap, at[i].Sub(at[i-1]))
	}
	require.Greater(t, at[len(at)-1], began, "the writers resumed by themselves after the fault")

	held := map[echomq.ID]bool{}
	for ev, err := range s.Scan(ctx, echomq.All, nil) {
		require.NoError(t, err)
		held[ev.ID] = true
	}
	fig.acked, fig.short = len(acked), len(short)
	for _, id := range acked {
		if !held[id] {
			fig.lost++
		}
	}
	for _, id := range short {
		if !held[id] {
			fig.shortLost++
		}
	}
	return fig
}

// TestFailoverManual: appends run while a replica takes over its master
// with CLUSTER FAILOVER (the master stops writes, the replica catches up,
// then the roles swap). The client follows the slots to the new master by
// itself; nothing acknowledged is lost, with or without the durable
// append.
//
// Not parallel: six engines and eight writers at full speed would take
// the machine from the tests running beside them.
func TestFailoverManual(t *testing.T) {
	cl := echomqtest.StartReplicatedCluster(t)
	c := faultClient(t, cl.URL(), echomq.Config{})
	for trial := range failoverTrials() {
		for _, durable := range []bool{false, true} {
			master := currentMaster(t, cl, cl.Nodes()[(2*trial+btoi(durable))%3])
			replica, err := cl.ReplicaOf(master)
			require.NoError(t, err)
			require.NotNil(t, replica)
			q := queueOn(t, c, cl, master)
			fig := appendThrough(t, c, q, durable, func() { cl.Failover(t, replica) })
			t.Logf("trial %d, manual failover, durable=%v: %v", trial, durable, fig)
			require.Zero(t, fig.lost, "a manual failover waits for the replica")
			// A durable append whose WAIT the old master cut short when it
			// turned replica (UNBLOCKED) is reported short, and kept.
			require.Zero(t, fig.shortLost)
		}
	}
}

// TestFailoverKilledMaster: appends run while their master is killed
// (SIGKILL) and its replica is promoted; in the lagging case the replica
// is paused for 3s first (past what the sockets buffer for it), so the master acknowledges appends its
// replica never gets. Plain appends acknowledged but not yet on the
// replica are lost (counted); a durable append is acknowledged only once
// the replica has it, so none acknowledged is lost.
//
// Not parallel, as TestFailoverManual.
func TestFailoverKilledMaster(t *testing.T) {
	cl := echomqtest.StartReplicatedCluster(t)
	c := faultClient(t, cl.URL(), echomq.Config{})
	n := 0
	for trial := range failoverTrials() {
		for _, lagging := range []bool{false, true} {
			for _, durable := range []bool{false, true} {
				master := currentMaster(t, cl, cl.Nodes()[n%3])
				n++
				replica, err := cl.ReplicaOf(master)
				require.NoError(t, err)
				require.NotNil(t, replica)
				q := queueOn(t, c, cl, master)
				fig := appendThrough(t, c, q, durable, func() {
					if lagging {
						require.NoError(t, replica.Pause())
						time.Sleep(3 * time.Second) // sleep: the replica lags past what the sockets buffer
					}
					require.NoError(t, master.Kill())
					require.NoError(t, replica.Resume())
					cl.WaitPromoted(t, replica)
				})
				t.Logf("trial %d, killed master, lagging replica=%v, durable=%v: %v", trial, lagging, durable, fig)
				if durable {
					require.Zero(t, fig.lost, "a durable append acknowledged is on the promoted replica")
				}
				// The old master comes back empty and rejoins as a replica.
				master.Restart(t)
				waitReplicated(t, cl, master)
			}
		}
	}
}

// currentMaster returns s when it is a master now, or the node that took
// over from it (its replica) when it is not.
func currentMaster(t *testing.T, cl *echomqtest.Cluster, s *echomqtest.Server) *echomqtest.Server {
	t.Helper()
	for _, m := range cl.Nodes() {
		if r, err := cl.ReplicaOf(m); err == nil && r != nil && (m == s || r == s) {
			return m
		}
	}
	for _, m := range cl.Replicas() {
		if r, err := cl.ReplicaOf(m); err == nil && r != nil && (m == s || r == s) {
			return m
		}
	}
	t.Fatalf("no master for %s", s.Addr())
	return nil
}

// waitReplicated waits until a restarted node replicates a master again,
// and its master counts it among its connected replicas.
func waitReplicated(t *testing.T, cl *echomqtest.Cluster, s *echomqtest.Server) {
	t.Helper()
	var master *echomqtest.Server
	echomqtest.WaitFor(t, 30*time.Second, s.Addr()+" to replicate a master", func() bool {
		for _, m := range append(cl.Nodes(), cl.Replicas()...) {
			if r, err := cl.ReplicaOf(m); err == nil && r == s {
				master = m
				return true
			}
		}
		return false
	})
	require.NoError(t, echomqtest.WaitReplicas(master, 1, 30*time.Second))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
