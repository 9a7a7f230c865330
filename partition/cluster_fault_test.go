package partition_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/rawcmd"
)

// clusterClient connects to a cluster with a fixed node id and no log.
func clusterClient(t *testing.T, url string) *echomq.Client {
	t.Helper()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: url, NodeID: new(9), Notice: io.Discard, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// placement maps each partition of s to the master serving its slot.
func placement(t *testing.T, c *echomq.Client, cl *echomqtest.Cluster, s *partition.Stream) []*echomqtest.Server {
	t.Helper()
	out := make([]*echomqtest.Server, s.Partitions())
	for i := range out {
		slot, err := rawcmd.Do(ctx, c, "CLUSTER", "KEYSLOT", s.Partition(i).Key())
		require.NoError(t, err)
		out[i], err = cl.MasterOf(int(slot.(int64)))
		require.NoError(t, err)
	}
	return out
}

// engineCalls sums the calls of INFO commandstats on s, the commands of
// the harness' own probes (INFO, CLUSTER, PING, CONFIG, CLIENT) aside.
func engineCalls(t *testing.T, s *echomqtest.Server) int64 {
	t.Helper()
	info, err := s.Info("commandstats")
	require.NoError(t, err)
	var n int64
	for k, v := range info {
		cmd := strings.TrimPrefix(k, "cmdstat_")
		if cmd == k || strings.HasPrefix(cmd, "info") || strings.HasPrefix(cmd, "cluster") || strings.HasPrefix(cmd, "ping") ||
			strings.HasPrefix(cmd, "config") || strings.HasPrefix(cmd, "client") || strings.HasPrefix(cmd, "hello") {
			continue
		}
		for f := range strings.SplitSeq(v, ",") {
			if c, ok := strings.CutPrefix(f, "calls="); ok {
				x, _ := strconv.ParseInt(c, 10, 64)
				n += x
			}
		}
	}
	return n
}

// TestClusterCommandShare: 8,000 keyed appends to a stream of 8 partitions
// on 3 masters; each master's share of the engine commands (INFO
// commandstats, before and after) follows the partitions it serves, within
// 5 points: the 3/3/2 spread gives 37.5/37.5/25 % (a share within ±15 %
// of a third on every master needs P a multiple of 3; see docs/scaling.md).
//
// Not parallel: a cluster of three masters and three replicas.
func TestClusterCommandShare(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	cl := echomqtest.StartReplicatedCluster(t)
	c := clusterClient(t, cl.URL())
	s, err := partition.Create(ctx, c, echomqtest.Queue(t), "orders", 8)
	require.NoError(t, err)
	where := placement(t, c, cl, s)
	held := map[*echomqtest.Server]int{}
	for _, m := range where {
		held[m]++
	}
	require.Len(t, held, 3, "the 8 partitions spread over the 3 masters")
	before := map[*echomqtest.Server]int64{}
	for _, m := range cl.Nodes() {
		before[m] = engineCalls(t, m)
	}
	const events, keys = 8000, 1000
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < events; i += 8 {
				key := "k" + strconv.Itoa(i%keys)
				if _, err := s.Append(ctx, key, echomq.F("key", key), nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	var total int64
	calls := map[*echomqtest.Server]int64{}
	for _, m := range cl.Nodes() {
		calls[m] = engineCalls(t, m) - before[m]
		total += calls[m]
	}
	var line []string
	for _, m := range cl.Nodes() {
		share := float64(calls[m]) / float64(total)
		line = append(line, fmt.Sprintf("%s: %d partitions, %d commands (%.1f %%)", m.Addr(), held[m], calls[m], 100*share))
		require.InDelta(t, float64(held[m])/8, share, 0.05, "a master's share follows its partitions")
	}
	t.Logf("%d appends, %d engine commands (%.2f per append): %s", events, total, float64(total)/events, strings.Join(line, "; "))
}

// tally is what one failover under appends to a partitioned stream
// measured: acknowledged appends against those the engine still holds.
type tally struct {
	acked, lost, short, shortLost, failed int
	// gap is the longest time one writer went between two appends
	// written: how long a writer of the faulted master's partitions was
	// held up (the others were not).
	gap time.Duration
}

func (f tally) String() string {
	return fmt.Sprintf("%d acknowledged, %d lost, %d written short of replicas (%d of them gone), %d failed (unavailable), longest gap %v",
		f.acked, f.lost, f.short, f.shortLost, f.failed, f.gap.Round(time.Millisecond))
}

type receipt struct {
	part int
	id   echomq.ID
}

// appendAcross appends keyed events from 8 goroutines over every partition
// of s for a second, runs fault, appends until the writers have resumed
// and a second more, then counts what the partitions still hold of what
// was acknowledged.
func appendAcross(t *testing.T, s *partition.Stream, durable bool, fault func()) tally {
	t.Helper()
	opts := &echomq.AppendOpts{}
	if durable {
		opts.Durable = echomq.Durability{Replicas: 1, Timeout: time.Second}
	}
	var (
		mu           sync.Mutex
		acked, short []receipt
		last         time.Time
		fig          tally
	)
	actx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			var prev time.Time
			for i := w; actx.Err() == nil; i += 8 {
				key := "k" + strconv.Itoa(i%1000)
				part := s.Route(key)
				id, err := s.Append(actx, key, echomq.F("key", key, "n", strconv.Itoa(i)), opts)
				mu.Lock()
				switch {
				case err == nil:
					acked, last = append(acked, receipt{part, id}), time.Now()
					fig.gap, prev = maxGap(fig.gap, prev, last), last
				case errors.Is(err, echomq.ErrNotDurable):
					if de, ok := errors.AsType[*echomq.DurabilityError](err); ok {
						for _, id := range de.Receipts {
							short = append(short, receipt{part, id})
						}
					}
					last = time.Now()
					fig.gap, prev = maxGap(fig.gap, prev, last), last
				case actx.Err() != nil:
				case errors.Is(err, echomq.ErrUnavailable):
					fig.failed++
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
	defer func() { stop(); wg.Wait() }()
	time.Sleep(time.Second) // sleep: the writers append a second before the fault
	fault()
	began := time.Now()
	echomqtest.WaitFor(t, 30*time.Second, "the writers to resume after the fault", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return last.After(began)
	})
	time.Sleep(time.Second) // sleep: the writers append a second more
	stop()
	wg.Wait()

	held := map[receipt]bool{}
	for i, p := range s.All() {
		for ev, err := range p.Scan(ctx, echomq.All, nil) {
			require.NoError(t, err)
			held[receipt{i, ev.ID}] = true
		}
	}
	fig.acked, fig.short = len(acked), len(short)
	for _, r := range acked {
		if !held[r] {
			fig.lost++
		}
	}
	for _, r := range short {
		if !held[r] {
			fig.shortLost++
		}
	}
	return fig
}

// TestClusterPartitionedFailover: appends over the 8 partitions of a
// stream on 3 masters run through a manual failover (CLUSTER FAILOVER:
// nothing acknowledged is lost) and through a killed master whose replica
// lagged 3 s (plain appends acknowledged but never replicated are lost,
// counted: the asynchronous-replication window; durable appends lose
// none). Only the partitions of the faulted master are touched; the
// others keep serving.
//
// Not parallel, as TestClusterCommandShare.
func TestClusterPartitionedFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	cl := echomqtest.StartReplicatedCluster(t)
	c := clusterClient(t, cl.URL())
	q := echomqtest.Queue(t)
	n := 0
	for _, kill := range []bool{false, true} {
		for _, durable := range []bool{false, true} {
			s, err := partition.Create(ctx, c, q+"."+strconv.Itoa(n), "orders", 8)
			require.NoError(t, err)
			where := placement(t, c, cl, s)
			master := where[n%8]
			n++
			replica, err := cl.ReplicaOf(master)
			require.NoError(t, err)
			require.NotNil(t, replica)
			fig := appendAcross(t, s, durable, func() {
				if !kill {
					cl.Failover(t, replica)
					return
				}
				require.NoError(t, replica.Pause())
				time.Sleep(3 * time.Second) // sleep: the replica lags past what the sockets buffer
				require.NoError(t, master.Kill())
				require.NoError(t, replica.Resume())
				cl.WaitPromoted(t, replica)
			})
			parts := 0
			for _, m := range where {
				if m == master {
					parts++
				}
			}
			t.Logf("killed master=%v, durable=%v, %d of 8 partitions on the faulted master: %v", kill, durable, parts, fig)
			if durable || !kill {
				require.Zero(t, fig.lost)
			}
			require.Zero(t, fig.shortLost)
			if kill {
				master.Restart(t)
				echomqtest.WaitFor(t, 60*time.Second, "the old master back as a replica", func() bool {
					for _, m := range append(cl.Nodes(), cl.Replicas()...) {
						if r, err := cl.ReplicaOf(m); err == nil && r == master {
							return echomqtest.WaitReplicas(m, 1, 30*time.Second) == nil
						}
					}
					return false
				})
			}
		}
	}
}

func maxGap(gap time.Duration, prev, now time.Time) time.Duration {
	if prev.IsZero() {
		return gap
	}
	return max(gap, now.Sub(prev))
}
