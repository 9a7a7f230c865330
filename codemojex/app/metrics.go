package app

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/health"
	"github.com/echomq/echomq/lanes"
	emqprom "github.com/echomq/echomq/prometheus"
)

// metricsHandler serves /metrics: EchoMQ's hook-fed metrics (m, set on the
// client), its scrape-time gauges of the game's streams and guess queue,
// and the game's health (h), in one registry beside the Go runtime and
// process collectors. A scrape must carry the operator token as a bearer
// token (the figures are the operator's, like the operator pages).
func metricsHandler(sh *codemojex.Shards, m *emqprom.Metrics, h *health.Monitor, token string) (http.Handler, error) {
	var refs []emqprom.StreamRef
	var jobs []*lanes.Queue
	for _, eng := range sh.Engines() {
		for _, s := range codemojex.Streams {
			refs = append(refs, emqprom.StreamRef{Queue: eng.Queue(), Stream: s})
		}
		jobs = append(jobs, eng.Jobs())
	}
	c, err := emqprom.NewCollector(&emqprom.CollectorConfig{Client: sh.Shard(0).Client(), Streams: refs, Lanes: jobs})
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	for _, col := range []prometheus.Collector{collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), h} {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	if err := emqprom.Register(reg, m, c); err != nil {
		return nil, err
	}
	serve := emqprom.Handler(reg)
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="codemojex metrics"`)
			http.Error(w, "metrics need the operator token: Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		serve.ServeHTTP(w, r)
	}), nil
}
