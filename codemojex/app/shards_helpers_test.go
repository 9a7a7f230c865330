package app

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// shardedServe is serve --shards on a cluster, as the sharded tests run it.
type shardedServe struct {
	ctx    context.Context
	cancel context.CancelFunc
	url    string     // the server's address
	served chan error // Serve's result
	c      *echomq.Client
	sh     *codemojex.Shards // the game's shards, for the audits
}

// serveSharded starts serve over the given number of shards of queue on cl
// and connects a client of its own (its commands come after the runs, so
// they are not counted); stop stops the server and checks it ended well.
func serveSharded(t *testing.T, cl *echomqtest.Cluster, queue string, shards int, snapshots bool) *shardedServe {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &shardedServe{ctx: ctx, cancel: cancel, served: make(chan error, 1)}
	ready := make(chan string, 1)
	go func() {
		s.served <- Serve(ctx, &ServeConfig{
			Addr: "127.0.0.1:0", URL: cl.URL(), Queue: queue, Shards: shards, OperatorToken: "op",
			DevSignIn: true, Workers: 64, Sweep: 200 * time.Millisecond, Snapshots: snapshots, Logger: quiet, Out: io.Discard,
			GuessRate: Rate{PerSecond: -1}, SignInRate: Rate{PerSecond: -1}, Ready: func(u string) { ready <- u },
		})
	}()
	s.url = serving(t, ready, s.served)
	c, err := echomq.Connect(ctx, &echomq.Config{URL: cl.URL(), Logger: quiet, Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	s.c = c
	s.sh, err = codemojex.NewShards(ctx, c, &codemojex.Config{Queue: queue, Logger: quiet}, shards)
	require.NoError(t, err)
	return s
}

// running fails the test if serve has exited.
func (s *shardedServe) running(t *testing.T, what string) {
	t.Helper()
	select {
	case err := <-s.served:
		t.Fatalf("%s: serve exited: %v", what, err)
	default:
	}
}

// shardPair returns the master serving shard i's slot (that of its
// guess-scored stream) on cl, and the master's replica.
func (s *shardedServe) shardPair(t *testing.T, cl *echomqtest.Cluster, i int) (master, replica *echomqtest.Server) {
	t.Helper()
	slot, err := rawcmd.Do(s.ctx, s.c, "CLUSTER", "KEYSLOT", s.sh.Shard(i).Stream(codemojex.StreamGuessScored).Key())
	require.NoError(t, err)
	master, err = cl.MasterOf(int(slot.(int64)))
	require.NoError(t, err)
	replica, err = cl.ReplicaOf(master)
	require.NoError(t, err)
	require.NotNil(t, replica)
	return master, replica
}

// stop stops serve and waits for it to return without an error.
func (s *shardedServe) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	require.NoError(t, echomqtest.Recv(t, s.served, 30*time.Second, "the server to stop"))
}

// balanced waits until every charged guess is scored or refunded, across
// the shards (a charge in the player's home shard, the guess in its
// game's), then requires no guess charged twice and every wallet equal to
// its ledger; it returns the audit.
func (s *shardedServe) balanced(t *testing.T, shards int) ledgerAudit {
	t.Helper()
	var audit ledgerAudit
	echomqtest.WaitFor(t, 3*time.Minute, "every charged guess scored or refunded", func() bool {
		audit = auditShards(t, s.sh)
		return audit.unresolved == 0
	})
	require.Empty(t, audit.problems)
	for k := range shards {
		e := s.sh.Shard(k)
		for player, sum := range audit.wallets[k] {
			w, err := e.Wallet(s.ctx, player)
			require.NoError(t, err)
			require.Equal(t, sum, w.Keys, "shard %d: wallet of %s against its ledger", k, player)
		}
	}
	return audit
}
