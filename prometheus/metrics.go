package emqprom

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Namespace prefixes every metric name.
const Namespace = "echomq"

// DefaultBuckets are the latency buckets of the duration histograms, in
// seconds: from 100µs (an append on a local engine) to 10s.
var DefaultBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// MetricsConfig configures [NewMetrics]; the zero value is the defaults.
type MetricsConfig struct {
	// Buckets are the histograms' buckets in seconds. Defaults to
	// [DefaultBuckets].
	Buckets []float64
	// ConstLabels are added to every metric (for example the service's
	// name). Defaults to none.
	ConstLabels prometheus.Labels
}

// Metrics counts what a client does, fed by its hooks: give it to
// echomq.Config.Hooks and register it. It implements the hooks
// [echomq.EngineCallHook], [echomq.AppendHook], [echomq.ReadHook],
// [echomq.DeliverHook], [echomq.AckHook], [echomq.DeadLetterHook],
// [echomq.TrimHook], [lanes.JobHook], [archive.CycleHook] and
// [projection.CheckpointHook], and [prometheus.Collector]. One Metrics may
// serve several clients; it is safe for concurrent use.
type Metrics struct {
	appends, appendErrors          *prometheus.CounterVec
	appendDuration                 *prometheus.HistogramVec
	calls, callErrors              *prometheus.CounterVec
	callDuration                   *prometheus.HistogramVec
	reads, readEvents              *prometheus.CounterVec
	delivered, failed, acked, dead *prometheus.CounterVec
	trimmedAcks                    *prometheus.CounterVec
	handleDuration                 *prometheus.HistogramVec
	trims                          *prometheus.CounterVec
	jobs                           *prometheus.CounterVec
	claimWait, runDuration         *prometheus.HistogramVec
	cycles, folded                 *prometheus.CounterVec
	lastCycle, lastCycleOK         *prometheus.GaugeVec
	cycleDuration                  *prometheus.HistogramVec
	checkpoints                    *prometheus.CounterVec
	partitionChanges               *prometheus.CounterVec
	all                            []prometheus.Collector
}

// NewMetrics returns the hook-fed metrics; nil cfg means the defaults.
func NewMetrics(cfg *MetricsConfig) *Metrics {
	var c MetricsConfig
	if cfg != nil {
		c = *cfg
	}
	if len(c.Buckets) == 0 {
		c.Buckets = DefaultBuckets
	}
	m := &Metrics{}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help, ConstLabels: c.ConstLabels}, labels)
		m.all = append(m.all, v)
		return v
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help, ConstLabels: c.ConstLabels}, labels)
		m.all = append(m.all, v)
		return v
	}
	histogram := func(name, help string, labels ...string) *prometheus.HistogramVec {
		v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: name, Help: help, Buckets: c.Buckets, ConstLabels: c.ConstLabels}, labels)
		m.all = append(m.all, v)
		return v
	}
	qs := []string{"queue", "stream"}
	qsg := []string{"queue", "stream", "group"}
	m.appends = counter("appends_total", "Records appended.", qs...)
	m.appendErrors = counter("append_errors_total", "Records not appended, by error kind.", "queue", "stream", "kind")
	m.appendDuration = histogram("append_duration_seconds", "Latency of an append call (a batch counts once).", qs...)
	m.calls = counter("engine_calls_total", "Commands sent to the engine (a pipeline counts each command).", "command")
	m.callErrors = counter("engine_call_errors_total", "Engine calls that failed, by error kind.", "command", "kind")
	m.callDuration = histogram("engine_call_duration_seconds", "Latency of an engine call or pipeline.", "command")
	m.reads = counter("reads_total", "Range reads of a stream.", qs...)
	m.readEvents = counter("read_events_total", "Events returned by range reads.", qs...)
	m.delivered = counter("consumer_delivered_total", "Deliveries handed to a consumer's handler.", qsg...)
	m.failed = counter("consumer_failed_total", "Deliveries whose handler failed or panicked.", qsg...)
	m.acked = counter("consumer_acknowledged_total", "Entries acknowledged after their handler succeeded.", qsg...)
	m.trimmedAcks = counter("consumer_trimmed_total", "Pending entries whose data was trimmed: acknowledged, never handled.", qsg...)
	m.dead = counter("consumer_dead_lettered_total", "Entries moved to the dead letters.", qsg...)
	m.handleDuration = histogram("consumer_handle_duration_seconds", "Time a handler ran on one delivery.", qsg...)
	m.trims = counter("trimmed_entries_total", "Entries removed by trims, by who trimmed.", "queue", "stream", "by")
	m.jobs = counter("lanes_jobs_total", "Lanes job transitions seen by workers.", "queue", "event")
	m.claimWait = histogram("lanes_claim_wait_seconds", "Time from a job's enqueue to its claim.", "queue")
	m.runDuration = histogram("lanes_run_duration_seconds", "Time a lanes handler ran on one job.", "queue")
	m.cycles = counter("archive_cycles_total", "Archive cycles, by outcome (ok or an error kind).", "queue", "stream", "outcome")
	m.folded = counter("archive_folded_entries_total", "Entries archived by archive cycles.", qs...)
	m.lastCycle = gauge("archive_last_cycle_timestamp_seconds", "When the last archive cycle ended (Unix seconds).", qs...)
	m.lastCycleOK = gauge("archive_last_cycle_success", "1 when the last archive cycle succeeded, 0 when it failed.", qs...)
	m.cycleDuration = histogram("archive_cycle_duration_seconds", "Duration of an archive cycle.", qs...)
	m.checkpoints = counter("projection_checkpoints_total", "Projection snapshots written, by outcome (ok or an error kind).", "projection", "outcome")
	m.partitionChanges = counter("partition_changes_total", "Partitions gained or lost by members of a partitioned group (PartitionChanges).", "queue", "stream", "group", "change")
	return m
}

// Describe implements [prometheus.Collector].
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.all {
		c.Describe(ch)
	}
}

// Collect implements [prometheus.Collector].
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.all {
		c.Collect(ch)
	}
}
