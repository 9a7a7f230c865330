package emqprom

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Register registers the hook-fed metrics and, when c is not nil, the
// scrape-time collector on reg. Either may be nil. Errors are the
// registerer's (a collector registered twice).
func Register(reg prometheus.Registerer, m *Metrics, c *Collector) error {
	if m != nil {
		if err := reg.Register(m); err != nil {
			return err
		}
	}
	if c != nil {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Handler serves the metrics of g in the Prometheus exposition format (for
// a mux: mux.Handle("/metrics", emqprom.Handler(reg))).
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{})
}

// NewHandler is the one call a server makes for its /metrics: a registry
// of its own holding m and c (either may be nil) beside the Go runtime and
// process collectors, served by [Handler].
func NewHandler(m *Metrics, c *Collector) (http.Handler, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return nil, err
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, err
	}
	if err := Register(reg, m, c); err != nil {
		return nil, err
	}
	return Handler(reg), nil
}
