package echomq

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMinterSystemClockAnchor: in a testing/synctest bubble (the system
// clock is the bubble's fake one, wall and monotonic alike), the minter's
// reading of the system clock names the same millisecond as
// time.Now().UnixMilli() at every instant, sub-millisecond ones included,
// and its anchor is kept for just under reanchorEvery (1s) and renewed at
// it.
func TestMinterSystemClockAnchor(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		m, err := NewMinter(1, nil)
		require.NoError(t, err)
		require.Equal(t, time.Now().UnixMilli(), m.sysMillis())
		anchor := m.sys.Load()
		require.NotNil(t, anchor)

		var since time.Duration
		for _, step := range []time.Duration{1500 * time.Microsecond, 999 * time.Microsecond, time.Nanosecond, 250 * time.Millisecond} {
			time.Sleep(step) // sleep: the bubble's clock: an instant inside the anchor's second
			since += step
			require.Equal(t, time.Now().UnixMilli(), m.sysMillis(), "at %v", since)
			require.Same(t, anchor, m.sys.Load(), "at %v the anchor is kept", since)
		}
		time.Sleep(reanchorEvery - since - time.Nanosecond) // sleep: the bubble's clock: the anchor's last instant
		require.Equal(t, time.Now().UnixMilli(), m.sysMillis())
		require.Same(t, anchor, m.sys.Load())
		time.Sleep(time.Nanosecond) // sleep: the bubble's clock: reanchorEvery since the anchor
		require.Equal(t, time.Now().UnixMilli(), m.sysMillis())
		require.NotSame(t, anchor, m.sys.Load(), "renewed at reanchorEvery")
	})
}
