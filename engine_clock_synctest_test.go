package echomq

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/internal/wire"
)

// TestEngineClockWindows: in a testing/synctest bubble (the reading is pure
// Go: it runs on the monotonic clock, which the bubble fakes), a reading of
// the engine's clock is carried forward and trusted for exactly clockFresh
// (1s), and a stream marked hot stays with the script for exactly hotFor
// (1s) from the mark.
func TestEngineClockWindows(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const engineUs int64 = 1_800_000_000_123_000 // the engine's clock at the reading, µs
		e := newEngineClock()
		e.observe(e.since(), engineUs)
		id := func(ms int64) ID {
			i, err := NewID("EVT", snowflakeAt(time.UnixMilli(ms)))
			require.NoError(t, err)
			return i
		}

		time.Sleep(clockFresh - time.Millisecond) // sleep: the bubble's clock: the last millisecond of the reading's trust
		now, fresh := e.nowMs(e.since())
		require.True(t, fresh)
		require.Equal(t, engineUs/1000+999, now, "the reading carried forward on the monotonic clock")
		require.True(t, e.fast("s", id(now+fastLead.Milliseconds())), "an id fastLead ahead goes as a plain XADD")
		require.False(t, e.fast("s", id(now+fastLead.Milliseconds()+1)), "one further ahead goes to the script")

		time.Sleep(time.Millisecond) // sleep: the bubble's clock: clockFresh since the reading
		now, fresh = e.nowMs(e.since())
		require.False(t, fresh, "a reading clockFresh old is no longer trusted")
		require.Equal(t, engineUs/1000+1000, now)
		require.False(t, e.fast("s", id(now)), "a stale reading sends every append to the script")

		// A new reading; then the stream is marked hot.
		e.observe(e.since(), engineUs+1_000_000)
		require.True(t, e.fast("s", id(engineUs/1000+1000)))
		require.Equal(t, byte(wire.ModeArbitrate), e.mode("s"))
		e.markHot("s")
		require.False(t, e.fast("s", id(engineUs/1000+1000)), "a hot stream goes to the script")
		require.Equal(t, byte(wire.ModeContended), e.mode("s"))

		time.Sleep(hotFor - time.Nanosecond) // sleep: the bubble's clock: the last instant of the hot window
		require.Equal(t, byte(wire.ModeContended), e.mode("s"))
		time.Sleep(time.Nanosecond) // sleep: the bubble's clock: hotFor since the mark
		require.Equal(t, byte(wire.ModeArbitrate), e.mode("s"), "a stream is hot for hotFor, no longer")
	})
}
