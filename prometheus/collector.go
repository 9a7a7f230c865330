package emqprom

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/projection"
)

// DefaultScrapeTimeout is the default of [CollectorConfig.Timeout].
const DefaultScrapeTimeout = 5 * time.Second

// StreamRef names a stream whose gauges the [Collector] reads.
type StreamRef struct{ Queue, Stream string }

// Projection is a projection whose distance from its streams' tops the
// [Collector] reads.
type Projection struct {
	// Name is the projection's name (the "projection" label).
	Name string
	// Checkpoint returns its checkpoint: a projection.Live's Checkpoint
	// method, or a function reading a stored snapshot.
	Checkpoint func() projection.Checkpoint
	// Streams are its source streams.
	Streams []*echomq.Stream
}

// CollectorConfig configures [NewCollector]. Client is required; each list
// names what is read at every scrape, and nothing else is.
type CollectorConfig struct {
	// Client reads the engine. Required.
	Client *echomq.Client
	// Streams get length, memory and dead-letter gauges, and every
	// consumer group of each its pending, oldest-pending and lag gauges.
	Streams []StreamRef
	// Lanes are lanes queues whose job counts are read.
	Lanes []*lanes.Queue
	// Archiver, when set, has each of its policies' streams read for the
	// archive's segments, bytes, watermark and backlog.
	Archiver *archive.Archiver
	// Projections are read for their distance from the stream tops.
	Projections []Projection
	// Members are partitioned groups' members of this process: each
	// exports the partitions it holds, their lag and pending entries, and
	// the live members of its group (one lag read per held partition).
	Members []*partition.Member
	// Timeout bounds one scrape's engine reads. Defaults to
	// [DefaultScrapeTimeout].
	Timeout time.Duration
	// CountLimit bounds each count behind a lag (see
	// echomq.Stream.CountAfter). Defaults to 10 000 (the default of echomq.Stream.CountAfter).
	CountLimit int64
	// ConstLabels are added to every metric. Defaults to none.
	ConstLabels prometheus.Labels
}

// Collector reads the engine at scrape time for the gauges only the engine
// knows. It implements [prometheus.Collector]; a scrape's failures are
// counted in echomq_scrape_errors (by source) and leave out the gauges
// they concern, never failing the whole scrape.
type Collector struct {
	cfg   CollectorConfig
	descs map[string]*prometheus.Desc
}

// maxCountLimit is the largest CountLimit: echomq.Stream.CountAfter's
// limit.
const maxCountLimit = 10_000_000

// NewCollector returns a collector; it returns an [*echomq.ArgumentError]
// for a nil client, a negative timeout or count limit, and a bad stream
// name's [*echomq.NameError], before any I/O.
func NewCollector(config *CollectorConfig) (*Collector, error) {
	var cfg CollectorConfig
	if config != nil {
		cfg = *config
	}
	switch {
	case cfg.Client == nil:
		return nil, &echomq.ArgumentError{Name: "client", Reason: "must not be nil"}
	case cfg.Timeout < 0:
		return nil, &echomq.ArgumentError{Name: "timeout", Reason: "must not be negative"}
	case cfg.CountLimit < 0 || cfg.CountLimit > maxCountLimit:
		return nil, &echomq.ArgumentError{Name: "count limit", Reason: "outside 0..10000000"}
	}
	for _, r := range cfg.Streams {
		if err := cfg.Client.Stream(r.Queue, r.Stream).Err(); err != nil {
			return nil, err
		}
	}
	for _, p := range cfg.Projections {
		if p.Name == "" || p.Checkpoint == nil {
			return nil, &echomq.ArgumentError{Name: "projection", Reason: "needs a Name and a Checkpoint"}
		}
	}
	for _, m := range cfg.Members {
		if m == nil {
			return nil, &echomq.ArgumentError{Name: "member", Reason: "must not be nil"}
		}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultScrapeTimeout
	}
	c := &Collector{cfg: cfg, descs: map[string]*prometheus.Desc{}}
	desc := func(name, help string, labels ...string) {
		c.descs[name] = prometheus.NewDesc(Namespace+"_"+name, help, labels, cfg.ConstLabels)
	}
	qs := []string{"queue", "stream"}
	qsg := []string{"queue", "stream", "group"}
	desc("stream_length", "Entries in the stream.", qs...)
	desc("stream_memory_bytes", "Memory the engine uses for the stream (MEMORY USAGE).", qs...)
	desc("dead_letters", "Entries in the stream's dead-letter stream.", qs...)
	desc("group_pending", "Entries delivered to the group and not acknowledged.", qsg...)
	desc("group_oldest_pending_age_seconds", "Age (since its mint instant) of the group's oldest pending entry; 0 when none.", qsg...)
	desc("group_lag", "Entries above the group's last delivered id, counted by EchoMQ (holds after trims and deletions).", qsg...)
	desc("group_lag_exact", "1 when group_lag is exact, 0 when it is a lower bound (the count limit).", qsg...)
	desc("group_consumers", "Consumers of the group.", qsg...)
	desc("lanes_jobs", "Jobs of a lanes queue by state (waiting, active, delayed, backoff, dead).", "queue", "state")
	desc("lanes_lanes", "Lanes of a lanes queue: with waiting jobs (waiting), with jobs in flight (busy), on the rotation (ready).", "queue", "kind")
	desc("lanes_paused", "1 when the lanes queue is paused.", "queue")
	desc("archive_segments", "Segments in the stream's archive.", qs...)
	desc("archive_bytes", "Bytes of the stream's archive segments.", qs...)
	desc("archive_entries", "Entries in the stream's archive.", qs...)
	desc("archive_watermark_timestamp_seconds", "Mint instant of the newest archived entry (Unix seconds); 0 when none.", qs...)
	desc("archive_pending_entries", "Live entries past the archive policy and not archived yet.", qs...)
	desc("projection_behind", "Entries of a source stream above the projection's checkpoint.", "projection", "queue", "stream")
	qsgp := []string{"queue", "stream", "group", "partition"}
	desc("partition_members", "Live members of a partitioned group, as this member saw at its last beat.", qsg...)
	desc("partition_held_total", "Partitions this member holds.", qsg...)
	desc("partition_held", "1 for each partition this member holds.", qsgp...)
	desc("partition_lag", "Entries of a held partition above the group's last delivered id.", qsgp...)
	desc("partition_pending", "Entries of a held partition delivered and not acknowledged.", qsgp...)
	desc("engine_info", "1, labelled with the engine's name, version and maxmemory-policy (echomq.Client.Engine).", "engine", "version", "policy")
	desc("engine_evicting", "1 when the engine's maxmemory-policy evicts keys (only noeviction keeps every key).")
	desc("engine_used_memory_bytes", "The engine's used_memory at the client's last reading (its engine watcher).")
	desc("engine_max_memory_bytes", "The engine's maxmemory; 0 means no limit.")
	desc("engine_memory_headroom_bytes", "maxmemory minus used memory; absent when there is no limit. At 0 appends fail with ErrEngineFull.")
	desc("engine_memory_growth_bytes_per_second", "How fast used memory grew over the watcher's recent readings; 0 when it did not grow.")
	desc("engine_time_until_full_seconds", "Headroom divided by the recent growth; absent when there is no limit or memory is not growing.")
	desc("scrape_errors", "Engine reads that failed in this scrape, by source.", "source")
	desc("scrape_duration_seconds", "Time this scrape's engine reads took.")
	return c, nil
}

// Describe implements [prometheus.Collector].
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements [prometheus.Collector]: it reads the configured
// streams, groups, lanes queues, archive and projections within the
// scrape timeout.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.Timeout)
	defer cancel()
	s := &scrape{c: c, ch: ch, errs: map[string]int{"stream": 0, "group": 0, "lanes": 0, "archive": 0, "projection": 0, "partition": 0}}
	for _, r := range c.cfg.Streams {
		s.stream(ctx, c.cfg.Client.Stream(r.Queue, r.Stream))
	}
	for _, q := range c.cfg.Lanes {
		s.lanes(ctx, q)
	}
	if a := c.cfg.Archiver; a != nil {
		for _, p := range a.Policies() {
			s.archive(ctx, a, p)
		}
	}
	for _, p := range c.cfg.Projections {
		s.projection(ctx, p)
	}
	for _, m := range c.cfg.Members {
		s.member(ctx, m)
	}
	s.engine(c.cfg.Client.Engine())
	for src, n := range s.errs {
		s.gauge("scrape_errors", float64(n), src)
	}
	s.gauge("scrape_duration_seconds", time.Since(start).Seconds())
}

// scrape is one Collect.
type scrape struct {
	c    *Collector
	ch   chan<- prometheus.Metric
	errs map[string]int
}

func (s *scrape) gauge(name string, v float64, labels ...string) {
	s.ch <- prometheus.MustNewConstMetric(s.c.descs[name], prometheus.GaugeValue, v, labels...)
}

// engine exports the client's reading of its engine: no engine I/O, the
// client's watcher keeps it current.
func (s *scrape) engine(e echomq.Engine) {
	if !e.Checked {
		return
	}
	s.gauge("engine_info", 1, e.Name, e.Version, e.Policy)
	evicting := 0.0
	if e.Evicting() {
		evicting = 1
	}
	s.gauge("engine_evicting", evicting)
	s.gauge("engine_used_memory_bytes", float64(e.UsedMemory))
	s.gauge("engine_max_memory_bytes", float64(e.MaxMemory))
	if h, ok := e.Headroom(); ok {
		s.gauge("engine_memory_headroom_bytes", float64(h))
	}
	s.gauge("engine_memory_growth_bytes_per_second", e.Growth)
	if d, ok := e.UntilFull(); ok {
		s.gauge("engine_time_until_full_seconds", d.Seconds())
	}
}

func (s *scrape) failed(src string, err error) bool {
	if err == nil {
		return false
	}
	s.errs[src]++
	return true
}

func (s *scrape) stream(ctx context.Context, st *echomq.Stream) {
	q, n := st.Queue(), st.Name()
	info, err := st.Info(ctx)
	if s.failed("stream", err) {
		return
	}
	s.gauge("stream_length", float64(info.Length), q, n)
	if info.MemoryBytes >= 0 {
		s.gauge("stream_memory_bytes", float64(info.MemoryBytes), q, n)
	}
	if dl, err := st.DeadLetters().Len(ctx); !s.failed("stream", err) {
		s.gauge("dead_letters", float64(dl), q, n)
	}
	if !info.Exists {
		return // no groups: XINFO GROUPS of a missing key is an error reply the engine counts
	}
	groups, err := st.Groups(ctx)
	if s.failed("group", err) {
		return
	}
	now := s.c.cfg.Client.Now()
	for _, g := range groups {
		lag, err := st.Group(g.Name).Lag(ctx, s.c.cfg.CountLimit)
		if s.failed("group", err) {
			continue
		}
		exact := 0.0
		if lag.Exact {
			exact = 1
		}
		s.gauge("group_pending", float64(lag.Pending), q, n, g.Name)
		s.gauge("group_lag", float64(lag.Lag), q, n, g.Name)
		s.gauge("group_lag_exact", exact, q, n, g.Name)
		s.gauge("group_consumers", float64(len(g.Consumers)), q, n, g.Name)
		age := 0.0
		if lag.Pending > 0 {
			oldest, err := st.Group(g.Name).Pending(ctx, &echomq.PendingOpts{Count: 1})
			if s.failed("group", err) {
				continue
			}
			if len(oldest) == 1 {
				age = max(now.Sub(oldest[0].Entry.Time()).Seconds(), 0)
			}
		}
		s.gauge("group_oldest_pending_age_seconds", age, q, n, g.Name)
	}
}

func (s *scrape) lanes(ctx context.Context, lq *lanes.Queue) {
	st, err := lq.Stats(ctx)
	if s.failed("lanes", err) {
		return
	}
	q := lq.Name()
	for state, v := range map[string]int64{"waiting": st.Waiting, "active": st.Active, "delayed": st.Delayed, "backoff": st.Backoff, "dead": st.Dead} {
		s.gauge("lanes_jobs", float64(v), q, state)
	}
	for kind, v := range map[string]int64{"waiting": st.Lanes, "busy": st.Busy, "ready": st.Ready} {
		s.gauge("lanes_lanes", float64(v), q, kind)
	}
	paused := 0.0
	if st.Paused {
		paused = 1
	}
	s.gauge("lanes_paused", paused, q)
}

func (s *scrape) archive(ctx context.Context, a *archive.Archiver, p archive.Policy) {
	st, err := a.Status(ctx, p.Queue, p.Stream)
	if s.failed("archive", err) {
		return
	}
	q, n := p.Queue, p.Stream
	s.gauge("archive_segments", float64(st.Segments), q, n)
	s.gauge("archive_bytes", float64(st.Bytes), q, n)
	s.gauge("archive_entries", float64(st.Entries), q, n)
	wm := 0.0
	if !st.Watermark.IsZero() {
		wm = float64(st.Watermark.Time().UnixMilli()) / 1000
	}
	s.gauge("archive_watermark_timestamp_seconds", wm, q, n)
	past, err := s.pastPolicy(ctx, a, p, st)
	if s.failed("archive", err) {
		return
	}
	s.gauge("archive_pending_entries", float64(past), q, n)
}

// pastPolicy counts the live entries above the watermark that the policy
// no longer keeps: for a length rule the ones beyond the newest n, for a
// time rule the ones older than the horizon.
func (s *scrape) pastPolicy(ctx context.Context, a *archive.Archiver, p archive.Policy, st archive.Status) (int64, error) {
	stream := a.Client().Stream(p.Queue, p.Stream)
	var w echomq.EntryID
	if !st.Watermark.IsZero() {
		w = st.Watermark.EntryID()
	}
	above, err := stream.CountAfter(ctx, w, s.c.cfg.CountLimit)
	if err != nil {
		return 0, err
	}
	h, ok := p.Keep.Horizon(s.c.cfg.Client.Now())
	if !ok { // a length rule
		return max(above.N-p.Keep.Len(), 0), nil
	}
	// Entries at or above the horizon are kept: count those and subtract.
	before := h
	if before.Seq > 0 {
		before.Seq--
	} else if before.Ms > 0 {
		before = echomq.EntryID{Ms: before.Ms - 1, Seq: ^uint64(0)}
	}
	kept, err := stream.CountAfter(ctx, before, s.c.cfg.CountLimit)
	if err != nil {
		return 0, err
	}
	return max(above.N-kept.N, 0), nil
}

func (s *scrape) projection(ctx context.Context, p Projection) {
	cp := p.Checkpoint()
	for _, st := range p.Streams {
		last, _ := cp.Get(st.Key())
		n, err := st.CountAfter(ctx, last, s.c.cfg.CountLimit)
		if s.failed("projection", err) {
			continue
		}
		s.gauge("projection_behind", float64(n.N), p.Name, st.Queue(), st.Name())
	}
}
