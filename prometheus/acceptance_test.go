package emqprom_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/projection"
	emqprom "github.com/echomq/echomq/prometheus"
	"github.com/echomq/echomq/retention"
)

var quiet = slog.New(slog.DiscardHandler)

const waitTimeout = 20 * time.Second

// scraped is one /metrics scrape, parsed.
type scraped map[string]*dto.MetricFamily

func scrape(t *testing.T, url string) scraped {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	require.NoError(t, err)
	return fams
}

// value returns the sample of name whose labels include every pair of kv;
// a histogram answers its sample count.
func (s scraped) value(t *testing.T, name string, kv ...string) float64 {
	t.Helper()
	fam, ok := s[name]
	require.True(t, ok, "metric %s not exported", name)
	for _, m := range fam.GetMetric() {
		if !hasLabels(m, kv) {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	require.Failf(t, "no sample", "%s%v", name, kv)
	return 0
}

func hasLabels(m *dto.Metric, kv []string) bool {
	for i := 0; i+1 < len(kv); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == kv[i] && l.GetValue() == kv[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// TestScriptedWorkload runs appends, a consumer with failures and dead
// letters, trims, lanes jobs with retries, an archive cycle and a
// projection, scrapes /metrics and checks every figure against the
// workload.
func TestScriptedWorkload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	metrics := emqprom.NewMetrics(nil)
	client, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Hooks: []echomq.Hook{metrics}, Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, client.Close()) })
	q := echomqtest.Queue(t)
	orders := client.Stream(q, "orders")

	// 10 appends, two of them poison; one refused append.
	for i := range 10 {
		v := "ok"
		if i == 3 || i == 7 {
			v = "bad"
		}
		_, err := orders.Append(ctx, echomq.F("v", v), nil)
		require.NoError(t, err)
	}
	_, err = orders.Append(ctx, echomq.F("odd"), nil)
	require.ErrorIs(t, err, echomq.ErrInvalidFields)

	// A consumer: 8 succeed, the 2 poison entries fail twice each and go
	// to the dead letters.
	cons, err := client.Consumer(&echomq.ConsumerConfig{
		Queue: q, Stream: "orders", Group: "billing", Start: echomq.StartHead, Logger: quiet,
		MinIdle: 100 * time.Millisecond, Beat: 20 * time.Millisecond, MaxDeliveries: 2,
		Handle: func(_ context.Context, d echomq.Delivery) error {
			if d.Fields.Value("v") == "bad" {
				return errors.New("poison")
			}
			return nil
		},
	})
	require.NoError(t, err)
	require.NoError(t, cons.Start(ctx))
	require.Eventually(t, func() bool { st := cons.Stats(); return st.Dead == 2 && st.Acked == 8 }, waitTimeout, 10*time.Millisecond)
	require.NoError(t, cons.Stop(ctx))

	// 5 more while nobody consumes, then a trim to the newest 3: the lag
	// is the 3 left, none of them delivered.
	for range 5 {
		_, err := orders.Append(ctx, echomq.F("v", "late"), nil)
		require.NoError(t, err)
	}
	trimmed, err := orders.Trim(ctx, echomq.MaxLen(3).Exact())
	require.NoError(t, err)
	require.EqualValues(t, 12, trimmed.Removed)

	// Lanes: a completes, b fails once then completes, c fails twice and dies.
	lq, err := lanes.New(client, q, &lanes.Config{MaxAttempts: 2})
	require.NoError(t, err)
	for _, lane := range []string{"a", "b", "c"} {
		_, err := lq.Enqueue(ctx, lane, []byte(lane), nil)
		require.NoError(t, err)
	}
	var bFailed atomic.Bool
	w, err := lanes.NewWorker(lq, lanes.HandlerFunc(func(_ context.Context, j *lanes.Job) error {
		switch j.Lane {
		case "b":
			if bFailed.CompareAndSwap(false, true) {
				return errors.New("once")
			}
		case "c":
			return errors.New("always")
		}
		return nil
	}), &lanes.WorkerConfig{
		Lease: time.Second, Heartbeat: 200 * time.Millisecond, JanitorInterval: 50 * time.Millisecond,
		IdleWait: 100 * time.Millisecond, Backoff: lanes.Fixed(10 * time.Millisecond), Logger: quiet,
	})
	require.NoError(t, err)
	require.NoError(t, w.Start(ctx))
	require.Eventually(t, func() bool {
		st, err := lq.Stats(ctx)
		return err == nil && st.Completed == 2 && st.Dead == 1
	}, waitTimeout, 20*time.Millisecond)
	require.NoError(t, w.Stop(ctx))

	// An archive cycle: 6 entries, keep 2: 4 folded into one segment.
	audit := client.Stream(q, "audit")
	for range 6 {
		_, err := audit.Append(ctx, echomq.F("x", "1"), nil)
		require.NoError(t, err)
	}
	store, err := fsstore.New(t.TempDir())
	require.NoError(t, err)
	policy := archive.Policy{Queue: q, Stream: "audit", Keep: retention.MaxLen(2)}
	arch, err := archive.New(client, store, &archive.Config{Policies: []archive.Policy{policy}, Logger: quiet})
	require.NoError(t, err)
	res, err := arch.Cycle(ctx, policy)
	require.NoError(t, err)
	require.EqualValues(t, 4, res.Folded)
	// 3 more: 5 live above the watermark, the policy keeps 2.
	for range 3 {
		_, err := audit.Append(ctx, echomq.F("x", "2"), nil)
		require.NoError(t, err)
	}

	// A projection caught up on audit, then 2 appends behind.
	perX := projection.CountBy("x")
	perX.Name = "per-x"
	live, err := projection.NewLive(perX, &projection.LiveConfig{Store: projection.EngineStore(client, q, "per-x")}, audit)
	require.NoError(t, err)
	_, err = live.CatchUp(ctx)
	require.NoError(t, err)
	for range 2 {
		_, err := audit.Append(ctx, echomq.F("x", "3"), nil)
		require.NoError(t, err)
	}

	coll, err := emqprom.NewCollector(&emqprom.CollectorConfig{
		Client:      client,
		Streams:     []emqprom.StreamRef{{Queue: q, Stream: "orders"}, {Queue: q, Stream: "audit"}},
		Lanes:       []*lanes.Queue{lq},
		Archiver:    arch,
		Projections: []emqprom.Projection{{Name: "per-x", Checkpoint: live.Checkpoint, Streams: []*echomq.Stream{audit}}},
	})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	require.NoError(t, emqprom.Register(reg, metrics, coll))
	srv := httptest.NewServer(emqprom.Handler(reg))
	defer srv.Close()
	got := scrape(t, srv.URL)

	qs := func(stream string, kv ...string) []string {
		return append([]string{"queue", q, "stream", stream}, kv...)
	}
	want := []struct {
		name   string
		labels []string
		value  float64
	}{
		{"echomq_appends_total", qs("orders"), 15},
		{"echomq_append_errors_total", qs("orders", "kind", "invalid"), 1},
		{"echomq_append_duration_seconds", qs("orders"), 16},
		{"echomq_appends_total", qs("audit"), 11},
		{"echomq_consumer_delivered_total", qs("orders", "group", "billing"), 12},
		{"echomq_consumer_failed_total", qs("orders", "group", "billing"), 4},
		{"echomq_consumer_acknowledged_total", qs("orders", "group", "billing"), 8},
		{"echomq_consumer_dead_lettered_total", qs("orders", "group", "billing"), 2},
		{"echomq_consumer_handle_duration_seconds", qs("orders", "group", "billing"), 12},
		{"echomq_trimmed_entries_total", qs("orders", "by", "trim"), 12},
		{"echomq_trimmed_entries_total", qs("audit", "by", "archive"), 4},
		{"echomq_stream_length", qs("orders"), 3},
		{"echomq_dead_letters", qs("orders"), 2},
		{"echomq_group_lag", qs("orders", "group", "billing"), 3},
		{"echomq_group_lag_exact", qs("orders", "group", "billing"), 1},
		{"echomq_group_pending", qs("orders", "group", "billing"), 0},
		{"echomq_group_oldest_pending_age_seconds", qs("orders", "group", "billing"), 0},
		{"echomq_lanes_jobs_total", []string{"queue", q, "event", "claimed"}, 5},
		{"echomq_lanes_jobs_total", []string{"queue", q, "event", "completed"}, 2},
		{"echomq_lanes_jobs_total", []string{"queue", q, "event", "retried"}, 2},
		{"echomq_lanes_jobs_total", []string{"queue", q, "event", "dead"}, 1},
		{"echomq_lanes_claim_wait_seconds", []string{"queue", q}, 5},
		{"echomq_lanes_run_duration_seconds", []string{"queue", q}, 5},
		{"echomq_lanes_jobs", []string{"queue", q, "state", "dead"}, 1},
		{"echomq_lanes_jobs", []string{"queue", q, "state", "waiting"}, 0},
		{"echomq_lanes_jobs", []string{"queue", q, "state", "active"}, 0},
		{"echomq_archive_cycles_total", qs("audit", "outcome", "ok"), 1},
		{"echomq_archive_folded_entries_total", qs("audit"), 4},
		{"echomq_archive_last_cycle_success", qs("audit"), 1},
		{"echomq_archive_segments", qs("audit"), 1},
		{"echomq_archive_entries", qs("audit"), 4},
		{"echomq_archive_pending_entries", qs("audit"), 5},
		{"echomq_stream_length", qs("audit"), 7},
		{"echomq_projection_behind", []string{"projection", "per-x", "queue", q, "stream", "audit"}, 2},
		{"echomq_projection_checkpoints_total", []string{"projection", "per-x", "outcome", "ok"}, 1},
		{"echomq_scrape_errors", []string{"source", "group"}, 0},
		{"echomq_scrape_errors", []string{"source", "archive"}, 0},
	}
	for _, w := range want {
		require.InDelta(t, w.value, got.value(t, w.name, w.labels...), 0, "%s%v", w.name, w.labels)
	}
	require.Positive(t, got.value(t, "echomq_engine_calls_total", "command", "XADD"))
	require.Positive(t, got.value(t, "echomq_archive_bytes", qs("audit")...))
	require.Positive(t, got.value(t, "echomq_stream_memory_bytes", qs("orders")...))
	require.Positive(t, got.value(t, "echomq_archive_watermark_timestamp_seconds", qs("audit")...))
}
