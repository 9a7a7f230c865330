package echomq_test

import (
	"io"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/embedded"
)

// memoryCalls counts the MEMORY calls a client sends, and those that failed.
type memoryCalls struct{ sent, failed atomic.Int64 }

func (m *memoryCalls) OnEngineCall(c echomq.EngineCall) {
	if c.Command == "MEMORY" {
		m.sent.Add(1)
		if c.Err != nil {
			m.failed.Add(1)
		}
	}
}

// An engine without MEMORY USAGE (the embedded one) is asked once: Info
// reports no memory and sends no failing command on every later call, so a
// dashboard or a scrape does not raise the engine's error counters. A real
// engine reports memory on every call.
func TestInfoAsksMemoryOnlyOfAnEngineThatHasIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		url      string
		reported bool
	}{
		{"embedded", embedded.URL, false},
		{"redis", echomqtest.Shared(t).URL(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			calls := &memoryCalls{}
			c, err := echomq.Connect(t.Context(), &echomq.Config{URL: tc.url, Hooks: []echomq.Hook{calls}, Notice: io.Discard})
			require.NoError(t, err)
			defer c.Close()
			s := c.Stream(echomqtest.Queue(t), "s")
			_, err = s.Append(t.Context(), echomq.F("k", "v"), nil)
			require.NoError(t, err)
			for range 3 {
				info, err := s.Info(t.Context())
				require.NoError(t, err)
				require.Equal(t, tc.reported, info.MemoryBytes > 0, info.MemoryBytes)
			}
			if tc.reported {
				require.EqualValues(t, 3, calls.sent.Load())
				require.Zero(t, calls.failed.Load())
			} else {
				require.LessOrEqual(t, calls.sent.Load(), int64(1))
			}
		})
	}
}
