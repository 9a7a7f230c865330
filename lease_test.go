package echomq_test

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/rawcmd"
)

// TestNodeLease: clients without a configured node id lease distinct ones
// in a queue from the queue's own keys on its first use, renew them, and
// free them on Close.
func TestNodeLease(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	// A TTL of seconds, renewed every third of it: a loaded machine that
	// delays a renewal by a second still keeps the lease.
	const ttl = 3 * time.Second
	q := echomqtest.Queue(t)
	a := connect(t, echomq.Config{URL: srv.URL(), NodeLeaseTTL: ttl})
	b := connect(t, echomq.Config{URL: srv.URL(), NodeLeaseTTL: ttl})
	keys, err := rawcmd.Do(ctx, a, "KEYS", "emq:{"+q+"}:node:*")
	require.NoError(t, err)
	require.Empty(t, keys, "nothing is leased before the queue's first use")
	nodeOf := func(c *echomq.Client) int {
		n, err := echomq.NodeIDOf(ctx, c, q)
		require.NoError(t, err)
		return n
	}
	require.NotEqual(t, nodeOf(a), nodeOf(b))
	key := func(c *echomq.Client) string { return "emq:{" + q + "}:node:" + itoa(nodeOf(c)) }
	require.True(t, exists(t, a, key(a)))
	require.True(t, exists(t, a, key(b)))
	// Renewed: the TTL climbs back up after it has run down (a renewal
	// seen, not a sleep hoped for).
	pttl := func() int64 {
		v, err := rawcmd.Do(ctx, a, "PTTL", key(a))
		require.NoError(t, err)
		return v.(int64)
	}
	var low int64
	require.Eventually(t, func() bool { low = pttl(); return low > 0 && low < ttl.Milliseconds()-100 }, 30*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return pttl() > low }, 30*time.Second, 50*time.Millisecond,
		"the lease is renewed while the client lives")

	// A lost lease (deleted behind the client's back, e.g. an engine restart)
	// is replaced, and ids keep increasing.
	m, err := a.Minter(ctx, q)
	require.NoError(t, err)
	before := m.Next()
	_, err = rawcmd.Do(ctx, a, "SET", key(a), "someone-else")
	require.NoError(t, err)
	old := nodeOf(a)
	require.Eventually(t, func() bool { return nodeOf(a) != old }, 30*time.Second, 20*time.Millisecond)
	require.Greater(t, m.Next(), before)

	nb := nodeOf(b)
	require.NoError(t, b.Close())
	require.False(t, exists(t, a, "emq:{"+q+"}:node:"+itoa(nb)), "Close frees the node id")
	require.NoError(t, b.Close(), "Close is idempotent")
	_, err = b.Stream("q", "s").Append(ctx, nil, nil)
	require.ErrorIs(t, err, echomq.ErrClosed)
}

// TestNodeLeasePerQueue: node ids are leased per queue, so a queue whose
// 1023 writer node ids are all taken (one tenant holding every lease it
// can) refuses the next lease there with a typed error, and leaves every
// other queue, and Connect, untouched.
func TestNodeLeasePerQueue(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	full, free := echomqtest.Queue(t), echomqtest.Queue(t)+"-free"
	hog := connect(t, echomq.Config{URL: srv.URL()})
	args := []string{"MSET"}
	for n := range echomq.EngineNode {
		args = append(args, "emq:{"+full+"}:node:"+itoa(n), "held")
	}
	_, err := rawcmd.Do(ctx, hog, args...)
	require.NoError(t, err)
	c := connect(t, echomq.Config{URL: srv.URL()}) // Connect leases nothing
	_, err = c.Stream(full, "ev").Append(ctx, echomq.F("k", "v"), nil)
	require.ErrorIs(t, err, echomq.ErrNoFreeNode)
	require.False(t, exists(t, c, c.Stream(full, "ev").Key()), "nothing written")
	id, err := c.Stream(free, "ev").Append(ctx, echomq.F("k", "v"), nil)
	require.NoError(t, err)
	require.Less(t, id.Snowflake().Node(), echomq.EngineNode)
	// The engine's node is never leased.
	require.False(t, exists(t, c, "emq:{"+free+"}:node:"+itoa(echomq.EngineNode)))
}

func TestConfigNodeOutOfRange(t *testing.T) {
	t.Parallel()
	_, err := echomq.Connect(ctx, &echomq.Config{NodeID: new(1024), Notice: io.Discard})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	_, err = echomq.Connect(ctx, &echomq.Config{NodeID: new(echomq.EngineNode), Notice: io.Discard})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument, "the engine's node id is refused")
	_, err = echomq.Connect(ctx, &echomq.Config{NodeID: new(-1), Notice: io.Discard})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}

func TestConnectUnreachable(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	url := srv.URL()
	srv.Stop()
	_, err := echomq.Connect(ctx, &echomq.Config{URL: url})
	var te *echomq.TransportError
	require.ErrorAs(t, err, &te)
	_, err = echomq.Connect(ctx, &echomq.Config{URL: "http://user:secret@nope"})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	require.NotContains(t, err.Error(), "secret")
}

// TestInteropFence: with Interop set, Connect writes the version fence when
// absent and refuses an engine holding another version.
func TestInteropFence(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	c := connect(t, echomq.Config{URL: srv.URL(), Interop: true})
	v, err := rawcmd.Do(ctx, c, "GET", "{emq}:version")
	require.NoError(t, err)
	require.Equal(t, echomq.InteropVersion, v)
	connect(t, echomq.Config{URL: srv.URL(), Interop: true}) // the same version is fine
	_, err = rawcmd.Do(ctx, c, "SET", "{emq}:version", "echomq:2.4.2")
	require.NoError(t, err)
	_, err = echomq.Connect(ctx, &echomq.Config{URL: srv.URL(), Interop: true})
	var ve *echomq.VersionError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, "echomq:2.4.2", ve.Got)
}

// TestEmbeddedNotice: the embedded engine says plainly that nothing persists.
func TestEmbeddedNotice(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	c, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, Notice: &buf})
	require.NoError(t, err)
	require.Equal(t, echomq.EngineEmbedded, c.Engine().Name)
	require.Contains(t, buf.String(), "nothing persists")
	require.NoError(t, c.Close())
}

// TestNoEngine: an empty URL names no engine; Connect says how to choose
// one instead of starting an engine that keeps nothing.
func TestNoEngine(t *testing.T) {
	t.Parallel()
	c, err := echomq.Connect(ctx, &echomq.Config{})
	require.Nil(t, c)
	require.ErrorIs(t, err, echomq.ErrNoEngine)
	require.Contains(t, err.Error(), "redis://")
	require.Contains(t, err.Error(), "embedded.URL")
}
