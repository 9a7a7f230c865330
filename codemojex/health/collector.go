package health

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The metrics a [Monitor] exports (docs/metrics.md, "codemojex").
var (
	descPlayers = prometheus.NewDesc("codemojex_players_active",
		"Players with a guess scored in the activity window (5 minutes by default).", nil, nil)
	descScored = prometheus.NewDesc("codemojex_guesses_scored_last_minute",
		"Guesses scored in the last minute, read from the guess-scored stream (every server's).", nil, nil)
	descScoring = prometheus.NewDesc("codemojex_scoring_seconds",
		"Time from submit to score of the guesses scored in the last minute.", nil, nil)
	descBacklog = prometheus.NewDesc("codemojex_scoring_backlog",
		"Guesses queued and not scored yet (jobs waiting, running, delayed or backing off).", nil, nil)
	descDead = prometheus.NewDesc("codemojex_scoring_dead_jobs",
		"Scoring jobs that gave up (dead): their guesses wait for an operator.", nil, nil)
	descFeeds = prometheus.NewDesc("codemojex_live_feeds",
		"Live feeds open on this server.", nil, nil)
	descExact = prometheus.NewDesc("codemojex_health_exact",
		"1 when the counts above are exact, 0 when the window held more than the reading's limit.", nil, nil)
	descErrors = prometheus.NewDesc("codemojex_health_errors",
		"1 when this scrape could not read the game's health from the engine.", nil, nil)
)

// scrapeTimeout bounds one scrape's reads.
const scrapeTimeout = 5 * time.Second

// Describe implements prometheus.Collector.
func (m *Monitor) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPlayers, descScored, descScoring, descBacklog, descDead, descFeeds, descExact, descErrors} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: one [Monitor.Read] per scrape.
// A failed read leaves the gauges out and reports codemojex_health_errors
// 1; it never fails the scrape.
func (m *Monitor) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	s, err := m.Read(ctx)
	failed := 0.0
	if err != nil {
		failed = 1
	}
	ch <- prometheus.MustNewConstMetric(descErrors, prometheus.GaugeValue, failed)
	if err != nil {
		return
	}
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	gauge(descPlayers, float64(s.PlayersActive))
	gauge(descScored, float64(s.ScoredLastMinute))
	gauge(descBacklog, float64(s.Backlog))
	gauge(descDead, float64(s.Dead))
	if s.LiveFeeds >= 0 {
		gauge(descFeeds, float64(s.LiveFeeds))
	}
	exact := 0.0
	if s.Exact {
		exact = 1
	}
	gauge(descExact, exact)
	ch <- prometheus.MustNewConstSummary(descScoring, uint64(s.ScoringCount), s.ScoringSum.Seconds(),
		map[float64]float64{0.5: s.ScoringP50.Seconds(), 1: s.ScoringMax.Seconds()})
}
