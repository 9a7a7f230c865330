package partition_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/rawcmd"
)

// TestMemberBeatRefused: a beat the engine refuses for good (here the
// group's members key holds a string, so the beat's script meets
// WRONGTYPE) is logged once at Error however many beats it refuses, is not
// an outage, and the member takes its partitions again once the key is
// mended.
func TestMemberBeatRefused(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	q := echomqtest.Queue(t)
	s, err := partition.Create(ctx, c, q, "orders", 2)
	require.NoError(t, err)
	logs := &echomqtest.Logs{}
	cfg := (&recorder{}).config("a")
	cfg.Logger = logs.Logger()
	m, err := s.Member(cfg)
	require.NoError(t, err)
	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = m.Run(rctx) })
	defer func() { stop(); echomqtest.Join(t, &wg, 30*time.Second, "the member to stop") }()
	echomqtest.WaitFor(t, 30*time.Second, "the member holds both partitions", func() bool { return len(m.Assignment().Held) == 2 })

	members := keyspace.PartitionMembersKey(q, "orders", "g")
	_, err = rawcmd.Do(ctx, c, "SET", members, "not a sorted set")
	require.NoError(t, err)
	const refused = "echomq: partition member: beat refused; retrying"
	echomqtest.WaitFor(t, 30*time.Second, "the refusal logged", func() bool { return logs.Count(refused) == 1 })
	echomqtest.WaitFor(t, 30*time.Second, "the member gives up partitions it can no longer renew", func() bool { return len(m.Assignment().Held) == 0 })
	require.Equal(t, 1, logs.Count(refused), "logged once however many beats fail: %q", logs.Messages())
	require.Zero(t, logs.Count("echomq: partition member: engine unavailable; retrying"), "a refusal is not an outage: %q", logs.Messages())

	_, err = rawcmd.Do(ctx, c, "DEL", members)
	require.NoError(t, err)
	echomqtest.WaitFor(t, 30*time.Second, "the member holds both partitions again", func() bool { return len(m.Assignment().Held) == 2 })
	require.Equal(t, 1, logs.Count(refused), "%q", logs.Messages())
}
