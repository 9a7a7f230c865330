package cli

import (
	"context"
	"errors"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/lanes"
	emqprom "github.com/echomq/echomq/prometheus"
)

// registerMetrics fills the registry /metrics serves: the Go runtime's
// and the process's collectors, and EchoMQ's engine gauges of what the
// dashboard shows (emqprom.Collector: each stream's length, memory, dead
// letters and groups with their lag; the lanes queue's jobs), read at
// scrape time over the streams the dashboard shows: the named ones and,
// unless Queue.Fixed, those discovered at each scrape.
func registerMetrics(reg *prometheus.Registry, c *echomq.Client, queues []dashboard.Queue) error {
	col := &discoveringCollector{c: c, queues: queues}
	base, err := col.build(context.Background(), false)
	if err != nil {
		return err
	}
	col.base = base
	return errors.Join(
		reg.Register(collectors.NewGoCollector()),
		reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})),
		reg.Register(col),
	)
}

// discoveringCollector is an emqprom.Collector over the streams found at
// each scrape. Its descriptions do not depend on the streams (they are
// labels), so the one built at start describes every later one.
type discoveringCollector struct {
	c      *echomq.Client
	queues []dashboard.Queue
	base   *emqprom.Collector
}

func (d *discoveringCollector) Describe(ch chan<- *prometheus.Desc) { d.base.Describe(ch) }

func (d *discoveringCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), emqprom.DefaultScrapeTimeout)
	defer cancel()
	col, err := d.build(ctx, true)
	if err != nil {
		col = d.base // a failed discovery leaves the named streams
	}
	col.Collect(ch)
}

// build makes the collector of the named streams and, with discover, of
// those the engine holds now.
func (d *discoveringCollector) build(ctx context.Context, discover bool) (*emqprom.Collector, error) {
	cfg := emqprom.CollectorConfig{Client: d.c}
	for _, q := range d.queues {
		names := slices.Clone(q.Streams)
		if discover && !q.Fixed {
			found, err := d.c.StreamsPrefix(q.Name, "").Names(ctx)
			if err != nil {
				return nil, err
			}
			for _, n := range found {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		for _, s := range names {
			cfg.Streams = append(cfg.Streams, emqprom.StreamRef{Queue: q.Name, Stream: s})
		}
		if q.Lanes || !q.Fixed {
			lq, err := lanes.New(d.c, q.Name, nil)
			if err != nil {
				return nil, err
			}
			cfg.Lanes = append(cfg.Lanes, lq)
		}
	}
	return emqprom.NewCollector(&cfg)
}
