package emqprom

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Register registers the hook-fed metrics and, when c is not nil, the
// scrape-time collector on reg: the one call a program makes before it
// mounts [Handler]. Errors are the registerer's (a collector registered
// twice).
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
