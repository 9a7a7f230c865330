package emqprom_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/projection"
	emqprom "github.com/echomq/echomq/prometheus"
)

// exported returns every series name the two collectors export, with a
// histogram's _bucket, _sum and _count, and each name's type.
func exported(t *testing.T) map[string]string {
	t.Helper()
	m := emqprom.NewMetrics(nil)
	// One observation per hook, so every family has a sample to gather.
	ctx, now, err := context.Background(), time.Now(), echomq.ErrClosed
	m.OnEngineCall(echomq.EngineCall{Command: "XADD", Commands: 1, Err: err})
	m.OnAppend(ctx, echomq.AppendInfo{Queue: "q", Stream: "s", Records: 2, Failed: 1, Err: err})
	m.OnRead(ctx, echomq.ReadInfo{Queue: "q", Stream: "s"})
	m.OnDeliver(ctx, echomq.DeliverInfo{Err: err})
	m.OnAck(ctx, echomq.AckInfo{Entries: 1})
	m.OnAck(ctx, echomq.AckInfo{Entries: 1, Trimmed: true})
	m.OnDeadLetter(ctx, echomq.DeadLetterInfo{})
	m.OnTrim(ctx, echomq.TrimInfo{Removed: 1})
	m.OnJob(ctx, lanes.JobTransition{Event: lanes.JobClaimed})
	m.OnJob(ctx, lanes.JobTransition{Event: lanes.JobCompleted})
	m.OnArchiveCycle(ctx, archive.CycleInfo{Start: now})
	m.OnCheckpoint(ctx, projection.CheckpointInfo{})
	client, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, client.Close()) })
	ps, err := partition.Create(ctx, client, echomqtest.Queue(t), "s", 1)
	require.NoError(t, err)
	m.PartitionChanges(ps, "g", nil)(partition.Change{Gained: true})
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(m))
	fams, err := reg.Gather()
	require.NoError(t, err)
	names := map[string]string{}
	for _, f := range fams {
		typ := strings.ToLower(f.GetType().String())
		names[f.GetName()] = typ
		if f.GetType() == dto.MetricType_HISTOGRAM {
			for _, sfx := range []string{"_bucket", "_sum", "_count"} {
				names[f.GetName()+sfx] = typ
			}
		}
	}
	c, err := emqprom.NewCollector(&emqprom.CollectorConfig{Client: client})
	require.NoError(t, err)
	ch := make(chan *prometheus.Desc, 64)
	c.Describe(ch)
	close(ch)
	fq := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for d := range ch {
		names[fq.FindStringSubmatch(d.String())[1]] = "gauge"
	}
	return names
}

// promqlWords are the PromQL functions, aggregations and keywords the docs'
// expressions may use.
var promqlWords = []string{
	"sum", "max", "min", "avg", "count", "rate", "increase", "delta", "deriv", "irate", "histogram_quantile",
	"time", "absent", "label_values", "by", "without", "and", "or", "unless", "bool", "offset", "on", "ignoring",
}

var (
	stringLit = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	braces    = regexp.MustCompile(`\{[^}]*\}`)
	brackets  = regexp.MustCompile(`\[[^\]]*\]`)
	grouping  = regexp.MustCompile(`\b(by|without|on|ignoring)\s*\([^)]*\)`)
	ident     = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	// Grafana's label_values(metric, label): the second argument is a label.
	labelValues = regexp.MustCompile(`label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)`)
)

// metricNames returns the metric names an expression references: every
// identifier outside label matchers, ranges, groupings and strings that is
// not a PromQL word.
func metricNames(expr string) []string {
	e := labelValues.ReplaceAllString(expr, " $1 ")
	e = stringLit.ReplaceAllString(e, " ")
	e = braces.ReplaceAllString(e, " ")
	e = brackets.ReplaceAllString(e, " ")
	e = grouping.ReplaceAllString(e, " $1 ")
	e = strings.ReplaceAll(e, "$__rate_interval", " ")
	var out []string
	for _, w := range ident.FindAllString(e, -1) {
		if !slices.Contains(promqlWords, w) {
			out = append(out, w)
		}
	}
	return out
}

func TestMetricNames(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"echomq_group_lag", "echomq_group_lag"},
		metricNames(`deriv(echomq_group_lag{queue=~"$queue"}[15m]) > 0 and echomq_group_lag > 1000`))
	require.Equal(t, []string{"echomq_append_duration_seconds_bucket"},
		metricNames(`histogram_quantile(0.99, sum by (le, queue) (rate(echomq_append_duration_seconds_bucket[5m])))`))
	require.Equal(t, []string{"up"}, metricNames(`up == 0`))
	require.Equal(t, []string{"echomq_stream_length"}, metricNames(`label_values(echomq_stream_length{queue=~"$queue"}, stream)`))
}

// dashboardExprs returns every "expr" and templating "query" of the
// Grafana dashboard.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/grafana/echomq.json")
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && (k == "expr" || k == "query" && strings.Contains(s, "(")) {
					out = append(out, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func alertExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/alerts.yml")
	require.NoError(t, err)
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	require.NoError(t, yaml.Unmarshal(b, &rules))
	var out []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			require.NotEmpty(t, r.Alert)
			out = append(out, r.Expr)
		}
	}
	return out
}

// TestDocsReferenceExportedMetrics: every expression of the dashboard and
// the alert rules references only metrics the collectors export, and the
// alerts cover lag, dead letters, the archive and stalled lanes.
func TestDocsReferenceExportedMetrics(t *testing.T) {
	t.Parallel()
	names := exported(t)
	dash, alerts := dashboardExprs(t), alertExprs(t)
	require.GreaterOrEqual(t, len(dash), 20)
	require.GreaterOrEqual(t, len(alerts), 8)
	used := map[string]bool{}
	for _, e := range append(dash, alerts...) {
		refs := metricNames(e)
		require.NotEmpty(t, refs, "expression %q names no metric", e)
		for _, n := range refs {
			_, ok := names[n]
			require.True(t, ok, "expression %q references %s, which is not exported", e, n)
			used[n] = true
		}
	}
	all := strings.Join(alerts, "\n")
	for _, must := range []string{"echomq_group_lag", "echomq_consumer_dead_lettered_total", "echomq_archive_pending_entries", `echomq_lanes_jobs{state="waiting"}`} {
		require.Contains(t, all, must)
	}
}

// TestMetricsDocumented: docs/metrics.md names every exported metric with
// its type, and nothing that is not exported.
func TestMetricsDocumented(t *testing.T) {
	t.Parallel()
	names := exported(t)
	b, err := os.ReadFile("../docs/metrics.md")
	require.NoError(t, err)
	doc := string(b)
	row := regexp.MustCompile("(?m)^\\| `(echomq_[a-z_]+)` \\| (counter|gauge|histogram) \\|")
	documented := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		documented[m[1]] = m[2]
	}
	for n, typ := range names {
		if typ == "histogram" && (strings.HasSuffix(n, "_bucket") || strings.HasSuffix(n, "_sum") || strings.HasSuffix(n, "_count")) {
			continue
		}
		require.Equal(t, typ, documented[n], "docs/metrics.md: %s", n)
	}
	for n := range documented {
		_, ok := names[n]
		require.True(t, ok, "docs/metrics.md documents %s, which is not exported", n)
	}
}
