package emqprom_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	emqprom "github.com/echomq/echomq/prometheus"
)

func TestNewCollectorBadInput(t *testing.T) {
	t.Parallel()
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	for _, tc := range []struct {
		name string
		cfg  emqprom.CollectorConfig
		want error
	}{
		{"no client", emqprom.CollectorConfig{}, echomq.ErrInvalidArgument},
		{"negative timeout", emqprom.CollectorConfig{Client: c, Timeout: -1}, echomq.ErrInvalidArgument},
		{"negative count limit", emqprom.CollectorConfig{Client: c, CountLimit: -1}, echomq.ErrInvalidArgument},
		{"count limit too large", emqprom.CollectorConfig{Client: c, CountLimit: 10_000_001}, echomq.ErrInvalidArgument},
		{"bad stream name", emqprom.CollectorConfig{Client: c, Streams: []emqprom.StreamRef{{Queue: "q", Stream: "a:b"}}}, echomq.ErrInvalidName},
		{"bad queue name", emqprom.CollectorConfig{Client: c, Streams: []emqprom.StreamRef{{Queue: "emq", Stream: "s"}}}, echomq.ErrInvalidName},
		{"projection without checkpoint", emqprom.CollectorConfig{Client: c, Projections: []emqprom.Projection{{Name: "p"}}}, echomq.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := emqprom.NewCollector(&tc.cfg)
			require.ErrorIs(t, err, tc.want)
		})
	}
}

func TestKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("wrapped: %w", echomq.ErrInvalidFields), emqprom.KindInvalid},
		{echomq.ErrReservedField, emqprom.KindInvalid},
		{&echomq.NameError{}, emqprom.KindInvalid},
		{&echomq.ConflictError{}, emqprom.KindConflict},
		{&echomq.SkewError{}, emqprom.KindSkew},
		{echomq.ErrWrongType, emqprom.KindWrongType},
		{context.Canceled, emqprom.KindCanceled},
		{context.DeadlineExceeded, emqprom.KindCanceled},
		{echomq.ErrUnavailable, emqprom.KindUnavailable},
		{echomq.ErrClosed, emqprom.KindClosed},
		{&echomq.EngineFullError{Message: "OOM command not allowed"}, emqprom.KindFull},
		{&echomq.ServerError{Prefix: "ERR", Message: "ERR no"}, emqprom.KindServer},
		{errors.New("else"), emqprom.KindOther},
	} {
		require.Equal(t, tc.want, emqprom.Kind(tc.err), "%v", tc.err)
	}
}

// TestEngineGauges: the collector exports the client's reading of its
// engine, and the headroom falls as the engine fills.
func TestEngineGauges(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t, "--maxmemory", "32mb")
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: srv.URL(), Notice: io.Discard, EngineCheckInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	col, err := emqprom.NewCollector(&emqprom.CollectorConfig{Client: c})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	require.NoError(t, emqprom.Register(reg, nil, col))
	gauge := func(name string) (float64, bool) {
		fams, err := reg.Gather()
		require.NoError(t, err)
		for _, f := range fams {
			if f.GetName() == name {
				return f.GetMetric()[0].GetGauge().GetValue(), true
			}
		}
		return 0, false
	}
	maxMem, ok := gauge("echomq_engine_max_memory_bytes")
	require.True(t, ok)
	require.InDelta(t, float64(32<<20), maxMem, 0)
	evicting, _ := gauge("echomq_engine_evicting")
	require.Zero(t, evicting)
	info, ok := gauge("echomq_engine_info")
	require.True(t, ok)
	require.InDelta(t, 1.0, info, 0)
	h0, ok := gauge("echomq_engine_memory_headroom_bytes")
	require.True(t, ok)

	s := c.Stream(echomqtest.Queue(t), "s")
	recs := make([]echomq.Fields, 100)
	for i := range recs {
		recs[i] = echomq.F("p", strings.Repeat("z", 1024))
	}
	for range 20 {
		_, err := s.AppendBatch(context.Background(), recs, nil)
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool {
		h, _ := gauge("echomq_engine_memory_headroom_bytes")
		return h < h0-1<<20
	}, 30*time.Second, 20*time.Millisecond, "headroom falls as the engine fills")
	require.Eventually(t, func() bool {
		// Still filling: the estimate spans the watcher's last readings.
		_, err := s.AppendBatch(context.Background(), recs[:10], nil)
		require.NoError(t, err)
		_, ok := gauge("echomq_engine_time_until_full_seconds")
		g, _ := gauge("echomq_engine_memory_growth_bytes_per_second")
		return ok && g > 0
	}, 30*time.Second, 20*time.Millisecond, "growth and time until full are estimated")
}
