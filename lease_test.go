package echomq_test

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// TestNodeLease: clients without a configured node id lease distinct ones
// from the engine, renew them, and free them on Close.
func TestNodeLease(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	a := connect(t, echomq.Config{URL: srv.URL(), NodeLeaseTTL: 300 * time.Millisecond})
	b := connect(t, echomq.Config{URL: srv.URL(), NodeLeaseTTL: 300 * time.Millisecond})
	require.NotEqual(t, a.NodeID(), b.NodeID())
	key := func(c *echomq.Client) string { return "{emq}:node:" + itoa(c.NodeID()) }
	require.True(t, exists(t, a, key(a)))
	require.True(t, exists(t, a, key(b)))
	// Renewed past several TTLs.
	time.Sleep(time.Second)
	require.True(t, exists(t, a, key(a)), "the lease is renewed while the client lives")

	// A lost lease (deleted behind the client's back, e.g. an engine restart)
	// is replaced, and ids keep increasing.
	before := a.Minter().Next()
	_, err := a.Do(ctx, "SET", key(a), "someone-else")
	require.NoError(t, err)
	old := a.NodeID()
	require.Eventually(t, func() bool { return a.NodeID() != old }, 5*time.Second, 10*time.Millisecond)
	require.Greater(t, a.Minter().Next(), before)

	nb := b.NodeID()
	require.NoError(t, b.Close())
	require.False(t, exists(t, a, "{emq}:node:"+itoa(nb)), "Close frees the node id")
	require.NoError(t, b.Close(), "Close is idempotent")
	_, err = b.Stream("q", "s").Append(ctx, nil)
	require.ErrorIs(t, err, echomq.ErrClosed)
}

func TestConfigNodeOutOfRange(t *testing.T) {
	t.Parallel()
	_, err := echomq.Connect(ctx, echomq.Config{NodeID: echomq.Node(1024), Notice: io.Discard})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	_, err = echomq.Connect(ctx, echomq.Config{NodeID: echomq.Node(-1), Notice: io.Discard})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}

func TestConnectUnreachable(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	url := srv.URL()
	srv.Stop()
	_, err := echomq.Connect(ctx, echomq.Config{URL: url})
	var te *echomq.TransportError
	require.ErrorAs(t, err, &te)
	_, err = echomq.Connect(ctx, echomq.Config{URL: "http://user:secret@nope"})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	require.NotContains(t, err.Error(), "secret")
}

// TestInteropFence: with Interop set, Connect writes the version fence when
// absent and refuses an engine holding another version.
func TestInteropFence(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	c := connect(t, echomq.Config{URL: srv.URL(), Interop: true})
	v, err := c.Do(ctx, "GET", "{emq}:version")
	require.NoError(t, err)
	require.Equal(t, echomq.InteropVersion, v)
	connect(t, echomq.Config{URL: srv.URL(), Interop: true}) // the same version is fine
	_, err = c.Do(ctx, "SET", "{emq}:version", "echomq:2.4.2")
	require.NoError(t, err)
	_, err = echomq.Connect(ctx, echomq.Config{URL: srv.URL(), Interop: true})
	var ve *echomq.VersionError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, "echomq:2.4.2", ve.Got)
}

// TestEmbeddedNotice: the embedded engine says plainly that nothing persists.
func TestEmbeddedNotice(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	c, err := echomq.Connect(ctx, echomq.Config{Notice: &buf})
	require.NoError(t, err)
	require.True(t, c.Embedded())
	require.Contains(t, buf.String(), "nothing persists")
	require.NoError(t, c.Close())
}
