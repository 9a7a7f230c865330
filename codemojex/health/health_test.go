package health_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/health"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

func TestMain(m *testing.M) { echomqtest.MainWithLeakCheck(m) }

var ctx = context.Background()

func engine(t *testing.T) *codemojex.Engine {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	c, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	e, err := codemojex.New(c, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet, StarterKeys: 100})
	require.NoError(t, err)
	return e
}

// guess submits one guess of distinct keyboard codes.
func guess(t *testing.T, e *codemojex.Engine, player, game string, shift int) {
	t.Helper()
	v, err := e.Game(ctx, game)
	require.NoError(t, err)
	kb := v.Keyboard
	codes := make([]string, rules.CodeLength)
	for i := range codes {
		codes[i] = kb[(shift+i)%len(kb)]
	}
	_, err = e.Submit(ctx, player, game, codes)
	require.NoError(t, err)
}

// TestSnapshot: a reading counts what the log and the queue hold: the
// backlog before the worker runs, then the scored guesses, the players who
// made them and the time they waited; a job that cannot run is dead. The
// collector exports the same numbers.
func TestSnapshot(t *testing.T) {
	t.Parallel()
	e := engine(t)
	r, err := e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Health", Prize: 100})
	require.NoError(t, err)
	var players []string
	var game string
	for _, name := range []string{"ann", "bob"} {
		p, _, err := e.SignIn(ctx, codemojex.Identity{Provider: "dev", Subject: name})
		require.NoError(t, err)
		j, err := e.Join(ctx, p.ID, r.ID)
		require.NoError(t, err)
		players, game = append(players, p.ID), j.Game
	}
	for i := range 3 {
		guess(t, e, players[0], game, i)
	}
	for i := range 2 {
		guess(t, e, players[1], game, 10+i)
	}
	_, err = e.Jobs().Enqueue(ctx, "not-a-guess", []byte("bogus"), nil)
	require.NoError(t, err)

	m, err := health.New(e, &health.Config{LiveFeeds: func() int { return 7 }})
	require.NoError(t, err)
	before, err := m.Read(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 6, before.Backlog, "five guesses and the bogus job wait")
	require.Zero(t, before.ScoredLastMinute)
	require.Zero(t, before.PlayersActive)

	w, err := e.Worker(&lanes.WorkerConfig{Concurrency: 2, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.NoError(t, w.Start(ctx))
	defer func() { require.NoError(t, w.Stop(ctx)) }()
	var s health.Snapshot
	require.Eventually(t, func() bool {
		s, err = m.Read(ctx)
		require.NoError(t, err)
		return s.Backlog == 0 && s.ScoredLastMinute == 5 && s.Dead == 1
	}, 30*time.Second, 20*time.Millisecond, "last reading %+v", s)
	require.Equal(t, 2, s.PlayersActive)
	require.Equal(t, 5, s.ScoringCount)
	require.Equal(t, 7, s.LiveFeeds)
	require.True(t, s.Exact)
	require.LessOrEqual(t, s.ScoringP50, s.ScoringMax)
	require.Positive(t, s.ScoringMax)
	require.LessOrEqual(t, s.ScoringSum, 5*s.ScoringMax)

	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(m))
	got := gather(t, reg)
	require.InDelta(t, 2, got["codemojex_players_active"].GetGauge().GetValue(), 0)
	require.InDelta(t, 5, got["codemojex_guesses_scored_last_minute"].GetGauge().GetValue(), 0)
	require.InDelta(t, 0, got["codemojex_scoring_backlog"].GetGauge().GetValue(), 0)
	require.InDelta(t, 1, got["codemojex_scoring_dead_jobs"].GetGauge().GetValue(), 0)
	require.InDelta(t, 7, got["codemojex_live_feeds"].GetGauge().GetValue(), 0)
	require.InDelta(t, 1, got["codemojex_health_exact"].GetGauge().GetValue(), 0)
	require.InDelta(t, 0, got["codemojex_health_errors"].GetGauge().GetValue(), 0)
	require.EqualValues(t, 5, got["codemojex_scoring_seconds"].GetSummary().GetSampleCount())
}

// TestLimit: past Config.Limit scored guesses the counts are lower bounds,
// and the snapshot says so.
func TestLimit(t *testing.T) {
	t.Parallel()
	e := engine(t)
	s := e.Stream(codemojex.StreamGuessScored)
	for i := range 3 {
		_, err := s.Append(ctx, echomq.F("player", "p"+string(rune('a'+i)), "guess", "none"), nil)
		require.NoError(t, err)
	}
	m, err := health.New(e, &health.Config{Limit: 2})
	require.NoError(t, err)
	snap, err := m.Read(ctx)
	require.NoError(t, err)
	require.False(t, snap.Exact)
	require.Equal(t, 2, snap.PlayersActive)
	require.Equal(t, 2, snap.ScoredLastMinute)
	require.Zero(t, snap.ScoringCount, "an event without a guess id has no waiting time")
	require.Equal(t, -1, snap.LiveFeeds)
}

// TestBadConfig: bad configuration is refused before any I/O.
func TestBadConfig(t *testing.T) {
	t.Parallel()
	e := engine(t)
	for name, tc := range map[string]struct {
		e   *codemojex.Engine
		cfg *health.Config
	}{
		"nil engine":      {nil, nil},
		"negative window": {e, &health.Config{Window: -time.Second}},
		"negative limit":  {e, &health.Config{Limit: -1}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m, err := health.New(tc.e, tc.cfg)
			require.ErrorIs(t, err, echomq.ErrInvalidArgument)
			require.Nil(t, m)
		})
	}
}

// TestEngineAway: a scrape while the engine is unreachable reports the
// error gauge and nothing else; it does not fail.
func TestEngineAway(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	quiet := slog.New(slog.DiscardHandler)
	c, err := echomq.Connect(ctx, &echomq.Config{URL: srv.URL(), Notice: io.Discard, Logger: quiet, CallTimeout: time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	e, err := codemojex.New(c, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet})
	require.NoError(t, err)
	m, err := health.New(e, nil)
	require.NoError(t, err)
	require.NoError(t, srv.Pause())
	defer func() { require.NoError(t, srv.Resume()) }()
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(m))
	got := gather(t, reg)
	require.InDelta(t, 1, got["codemojex_health_errors"].GetGauge().GetValue(), 0)
	require.NotContains(t, got, "codemojex_players_active")
}

func gather(t *testing.T, g prometheus.Gatherer) map[string]*dto.Metric {
	t.Helper()
	fams, err := g.Gather()
	require.NoError(t, err)
	out := map[string]*dto.Metric{}
	for _, f := range fams {
		if len(f.GetMetric()) > 0 {
			out[f.GetName()] = f.GetMetric()[0]
		}
	}
	return out
}
