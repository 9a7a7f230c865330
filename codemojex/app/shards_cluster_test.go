package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/sim"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
)

// TestServeShardedOnCluster is the acceptance of the sharded game on a
// cluster: serve --shards 3 on a cluster of 3 masters (each with a
// replica), and the simulation of 1,000 players (EMQ_SIM_PLAYERS; 250
// under -race, see race_test.go; 3
// guesses each, EMQ_SIM_GUESSES) played twice: once as is, once while the
// master of shard 0's slot hands over to its replica (CLUSTER FAILOVER)
// once a quarter of the guesses are scored (9 guesses each then), ending
// before the run does.
// Each time every guess is accepted and scored once, and each
// master's share of the engine commands (INFO commandstats before and
// after, the harness' probes aside; through the failover, each master and
// replica pair's) lies within ±15 % of a third, and serve runs on. Then, per shard, no guess
// is charged twice, every charged guess is scored or refunded once, and
// every wallet equals the sum of its ledger.
//
// Not parallel: a cluster of six servers and a thousand players.
func TestServeShardedOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	players := envOr(t, "EMQ_SIM_PLAYERS", simPlayers)
	guesses := envOr(t, "EMQ_SIM_GUESSES", 3)
	const shards = 3
	cl := echomqtest.StartReplicatedCluster(t)
	queue := "cmsim"

	srv := serveSharded(t, cl, queue, shards, true)
	ctx, url := srv.ctx, srv.url

	play := func(name string, mid func()) sim.Report {
		t.Helper()
		var trigger *halfway
		cfg := &sim.Config{URL: url, OperatorToken: "op", Players: players, Guesses: guesses, Strategy: "random", Wait: 2 * time.Minute}
		if mid != nil {
			// Three times the guesses, so the failover (a second or so)
			// falls well within the guessing.
			cfg.Guesses *= 3
			trigger = &halfway{at: int64(players * cfg.Guesses / 4), fire: mid}
			cfg.Progress = trigger
		} else {
			// The sim's own count, of the guessing phase, per master.
			var urls []string
			for _, m := range cl.Nodes() {
				urls = append(urls, "redis://"+m.Addr())
			}
			cfg.EngineURL = strings.Join(urls, ",")
		}
		nodes := append(cl.Nodes(), cl.Replicas()...)
		before := make([]int64, len(nodes))
		for i, n := range nodes {
			before[i] = engineCommands(t, n)
		}
		began := time.Now()
		rep, err := sim.Run(ctx, cfg)
		took := time.Since(began)
		require.NoError(t, err)
		if trigger != nil {
			ended := trigger.wait(t)
			require.True(t, ended.Before(began.Add(took)), "%s: the failover ended before the run", name)
		}
		srv.running(t, name)
		t.Logf("%s: %v (run %v)", name, rep, took.Round(100*time.Millisecond))
		require.Equal(t, shards, rep.Shards)
		require.Equal(t, int64(players*cfg.Guesses), rep.Accepted, "%s: every guess accepted", name)
		require.Zero(t, rep.Errors, name)
		if mid == nil {
			require.Len(t, rep.Engines, len(cl.Nodes()))
			for _, e := range rep.Engines {
				require.InDelta(t, 1.0/3, e.Share, 0.15/3, "%s: the guessing phase's share of %s", name, e.URL)
			}
		}
		if rep.Cracks == 0 { // a crack voids the guesses queued behind it
			require.Equal(t, rep.Accepted, rep.Scored, "%s: every accepted guess scored", name)
		}
		// Each master's share; through the failover the pair's (the one
		// that was master, then replica, and the other way round).
		delta := make([]int64, len(nodes))
		for i, n := range nodes {
			delta[i] = engineCommands(t, n) - before[i]
		}
		groups := make([]int64, len(cl.Nodes()))
		var total int64
		for i, m := range cl.Nodes() {
			groups[i] = delta[i]
			if mid != nil {
				r := pairOf(t, cl, m)
				for j, n := range nodes {
					if n == r {
						groups[i] += delta[j]
					}
				}
			}
			total += groups[i]
		}
		var line []string
		for i, g := range groups {
			share := float64(g) / float64(total)
			line = append(line, fmt.Sprintf("%.1f %%", 100*share))
			require.InDelta(t, 1.0/3, share, 0.15/3, "%s: master %d's share of %v", name, i, groups)
		}
		t.Logf("%s: %d engine commands (%.1f per scored guess), shares %s", name, total, float64(total)/float64(max(rep.Scored, 1)), strings.Join(line, ", "))
		return rep
	}

	play("steady", nil)
	play("through a failover", func() {
		master, replica := srv.shardPair(t, cl, 0)
		t0 := time.Now()
		cl.Failover(t, replica)
		t.Logf("failed over %s to %s in %v", master.Addr(), replica.Addr(), time.Since(t0).Round(100*time.Millisecond))
	})

	// Across the shards: no guess charged twice, every charge (in the
	// player's home shard) scored (in the game's shard) or refunded once (a
	// submit cut by the failover is settled by the sweep after
	// PendingAfter), every wallet its ledger.
	audit := srv.balanced(t, shards)
	require.NotZero(t, audit.charged)
	t.Logf("%d guesses charged (%d in another shard than the game's), %d scored, %d refunded, %d players",
		audit.charged, audit.across, audit.scored, audit.refunded, len(audit.players))
	require.NotZero(t, audit.across, "players played rooms of other shards than their home")
	srv.stop(t)
}

// envOr reads a positive integer from the environment, or def.
func envOr(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	require.Positive(t, n, name)
	return n
}

// pairOf returns the node paired with m: its replica, or, after a
// failover, its master.
func pairOf(t *testing.T, cl *echomqtest.Cluster, m *echomqtest.Server) *echomqtest.Server {
	t.Helper()
	if r, err := cl.ReplicaOf(m); err == nil && r != nil {
		return r
	}
	for _, r := range cl.Replicas() {
		if m2, err := cl.ReplicaOf(r); err == nil && m2 == m {
			return r
		}
	}
	t.Fatalf("no pair of %s", m.Addr())
	return nil
}

// engineCommands sums the calls of INFO commandstats on s, the commands of
// the harness' own probes (INFO, CLUSTER, PING, CONFIG, CLIENT, HELLO)
// aside.
func engineCommands(t *testing.T, s *echomqtest.Server) int64 {
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

// halfway is a simulation's progress writer that runs fire, once, in a
// goroutine of its own, when the guesses scored reach at.
type halfway struct {
	at    int64
	fire  func()
	once  sync.Once
	done  chan struct{}
	mu    sync.Mutex
	ended time.Time
}

var scoredRe = regexp.MustCompile(`scored (\d+)`)

func (h *halfway) Write(p []byte) (int, error) {
	m := scoredRe.FindSubmatch(p)
	if m == nil {
		return len(p), nil
	}
	if n, _ := strconv.ParseInt(string(m[1]), 10, 64); n >= h.at {
		h.once.Do(func() {
			h.mu.Lock()
			h.done = make(chan struct{})
			h.mu.Unlock()
			go func() {
				defer close(h.done)
				h.fire()
				h.mu.Lock()
				h.ended = time.Now()
				h.mu.Unlock()
			}()
		})
	}
	return len(p), nil
}

// wait waits for fire to end and returns when it did; it fails the test if
// fire never ran.
func (h *halfway) wait(t *testing.T) time.Time {
	t.Helper()
	h.mu.Lock()
	done := h.done
	h.mu.Unlock()
	require.NotNil(t, done, "the run ended before the guesses scored reached %d", h.at)
	echomqtest.Recv(t, done, 2*time.Minute, "the failover")
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ended
}

// serve refuses a queue in another layout than its game's: --shards on a
// queue holding a game of one shard, and one shard on a queue recorded
// sharded; the same count again serves.
func TestServeLayoutRefused(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	start := func(queue string, shards int) error {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		served := make(chan error, 1)
		ready := make(chan struct{})
		go func() {
			served <- Serve(ctx, &ServeConfig{
				Addr: "127.0.0.1:0", URL: url, Queue: queue, Shards: shards, OperatorToken: "op", Logger: quiet, Out: io.Discard,
				Ready: func(string) { close(ready) },
			})
		}()
		select {
		case err := <-served:
			return err
		case <-ready:
			cancel()
			return echomqtest.Recv(t, served, 30*time.Second, "the server to stop")
		case <-time.After(serveStart):
			t.Fatalf("serve over %d shards of %s neither started nor refused within %s", shards, queue, serveStart)
			return nil
		}
	}
	one := echomqtest.Queue(t)
	e := connect(t, url, one)
	_, err := e.CreateRoom(context.Background(), codemojex.RoomSpec{Name: "Zoo"})
	require.NoError(t, err)
	err = start(one, 3)
	require.ErrorContains(t, err, "holds a game of one shard (rooms: 1)")
	require.NoError(t, start(one, 1))

	sharded := echomqtest.Queue(t)
	require.NoError(t, start(sharded, 3))
	require.ErrorContains(t, start(sharded, 1), "holds a game of 3 shards: serve it with --shards 3")
	require.ErrorIs(t, start(sharded, 2), partition.ErrMismatch)
	require.NoError(t, start(sharded, 3))
}
