package lease_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/lease"
	"github.com/echomq/echomq/internal/wire"
)

func TestMain(m *testing.M) { echomqtest.MainWithLeakCheck(m) }

func dial(t *testing.T) *wire.Conn {
	t.Helper()
	c, err := wire.Dial(context.Background(), wire.Options{URL: echomqtest.Shared(t).URL()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func exists(t *testing.T, c *wire.Conn, key string) bool {
	t.Helper()
	v, err := c.Raw(context.Background(), "EXISTS", key)
	require.NoError(t, err)
	return v == int64(1)
}

// TestTakeExtendRelease: one holder at a time; only the holder extends and
// frees the key; Release is idempotent.
func TestTakeExtendRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := dial(t)
	key := "{" + echomqtest.Queue(t) + "}:lease"
	a, err := lease.Take(ctx, c, key, time.Minute)
	require.NoError(t, err)
	require.True(t, a.Held())
	_, err = lease.Take(ctx, c, key, time.Minute)
	require.ErrorIs(t, err, lease.ErrHeld)
	require.NoError(t, a.Extend(ctx))
	require.NoError(t, a.Release(ctx))
	require.NoError(t, a.Release(ctx), "idempotent")
	require.False(t, a.Held())
	require.False(t, exists(t, c, key))
	b, err := lease.Take(ctx, c, key, time.Minute)
	require.NoError(t, err, "free again")
	// A holder whose key was taken over cannot extend or free it.
	_, err = c.Raw(ctx, "SET", key, "usurper")
	require.NoError(t, err)
	require.ErrorIs(t, b.Extend(ctx), lease.ErrLost)
	require.False(t, b.Held())
	require.NoError(t, b.Release(ctx))
	v, err := c.Raw(ctx, "GET", key)
	require.NoError(t, err)
	require.Equal(t, "usurper", v, "another holder's key is left alone")
}

// TestHeldLapsesWithTheTTL: without renewal, Held turns false by the time
// the TTL could have run out, before anyone else could take the key.
func TestHeldLapsesWithTheTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := dial(t)
	key := "{" + echomqtest.Queue(t) + "}:lease"
	l, err := lease.Take(ctx, c, key, time.Second)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !l.Held() }, 30*time.Second, 10*time.Millisecond)
	// The holder gave up first; the engine lets the key go after it.
	require.Eventually(t, func() bool { return !exists(t, c, key) }, 30*time.Second, 10*time.Millisecond)
	require.ErrorIs(t, l.Extend(ctx), lease.ErrLost)
	require.NoError(t, l.Release(ctx))
}

// TestKeepRenewsAndReportsLoss: the keeper keeps the key alive past its TTL
// and reports a loss once.
func TestKeepRenewsAndReportsLoss(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := dial(t)
	key := "{" + echomqtest.Queue(t) + "}:lease"
	l, err := lease.Take(ctx, c, key, 3*time.Second)
	require.NoError(t, err)
	lost := make(chan struct{})
	l.Keep(func() { close(lost) }, nil)
	l.Keep(nil, nil) // a second Keep does nothing
	pttl := func() int64 {
		v, err := c.Raw(ctx, "PTTL", key)
		require.NoError(t, err)
		return v.(int64)
	}
	// Renewed: the TTL climbs back up after it has run down.
	var low int64
	require.Eventually(t, func() bool { low = pttl(); return low < 2900 }, 30*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return pttl() > low }, 30*time.Second, 20*time.Millisecond, "renewed")
	require.True(t, l.Held())
	_, err = c.Raw(ctx, "SET", key, "usurper")
	require.NoError(t, err)
	select {
	case <-lost:
	case <-time.After(30 * time.Second):
		t.Fatal("loss not reported")
	}
	require.False(t, l.Held())
	require.NoError(t, l.Release(ctx))
}
