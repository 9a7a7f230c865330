package echomq

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEngineClockNeverOvershoots: the carried reading is a lower bound of
// the engine's clock whatever the delays of the request and of the reply,
// so a plain XADD judged by it never lies further ahead of the engine's
// clock than fastLead. A tighter reading replaces a looser one; a looser
// one replaces it only once it is older than clockRenew.
func TestEngineClockNeverOvershoots(t *testing.T) {
	t.Parallel()
	const offsetUs = 1_700_000_000_000_000 // engine time = monotonic time + offset
	engineAt := func(d time.Duration) int64 { return offsetUs + int64(d/time.Microsecond) }
	cases := []struct {
		name      string
		sent      time.Duration // request written
		read      time.Duration // the engine reads its clock
		recv      time.Duration // reply received
		wantSlack time.Duration // how far below the truth the reading may be
	}{
		{"quick round trip", 10 * time.Millisecond, 10*time.Millisecond + 50*time.Microsecond, 10*time.Millisecond + 100*time.Microsecond, 100 * time.Microsecond},
		{"request waited to be written", 10 * time.Millisecond, 22 * time.Millisecond, 22*time.Millisecond + 100*time.Microsecond, 100 * time.Microsecond},
		{"reply waited to be read", 10 * time.Millisecond, 10*time.Millisecond + 50*time.Microsecond, 22 * time.Millisecond, 12 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e engineClock
			e.observe(tc.recv, engineAt(tc.read))
			for _, later := range []time.Duration{0, 3 * time.Millisecond, 500 * time.Millisecond} {
				at := tc.recv + later
				now, fresh := e.nowMs(at)
				require.True(t, fresh)
				truth := engineAt(at) / 1000
				require.LessOrEqual(t, now, truth, "the reading is ahead of the engine's clock")
				require.GreaterOrEqual(t, now, (engineAt(at)-int64((tc.wantSlack+time.Millisecond)/time.Microsecond))/1000)
			}
		})
	}

	t.Run("tighter replaces, looser waits for clockRenew", func(t *testing.T) {
		t.Parallel()
		var e engineClock
		e.observe(20*time.Millisecond, engineAt(10*time.Millisecond)) // 10 ms slack
		e.observe(30*time.Millisecond, engineAt(30*time.Millisecond)) // exact: replaces
		require.Equal(t, engineAt(30*time.Millisecond), e.reading.Load().engineUs)
		e.observe(60*time.Millisecond, engineAt(40*time.Millisecond)) // looser, recent: kept out
		require.Equal(t, engineAt(30*time.Millisecond), e.reading.Load().engineUs)
		late := 30*time.Millisecond + clockRenew + time.Millisecond
		e.observe(late, engineAt(late-5*time.Millisecond)) // looser, but the kept one is old
		require.Equal(t, engineAt(late-5*time.Millisecond), e.reading.Load().engineUs)
	})
}
