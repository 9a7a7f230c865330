package health

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
)

// Config configures [New]. The zero value is a working configuration.
type Config struct {
	// Window is how far back a player counts as active (a guess of theirs
	// scored within it). Defaults to 5 minutes.
	Window time.Duration

	// Limit bounds the scored guesses one reading takes from the window,
	// newest first; past it the counts are lower bounds ([Snapshot.Exact]
	// is false). Defaults to 10 000.
	Limit int

	// LiveFeeds, when set, reports the live feeds open now (the web app's
	// web.Handler.LiveFeeds). Defaults to nil: not reported.
	LiveFeeds func() int
}

// Snapshot is the game's health at one instant.
type Snapshot struct {
	// At is the instant of the reading (the engine's clock).
	At time.Time
	// PlayersActive counts the players with a guess scored in the window.
	PlayersActive int
	// ScoredLastMinute counts the guesses scored in the last minute.
	ScoredLastMinute int
	// ScoringP50 and ScoringMax are the time from submit to score of the
	// guesses scored in the last minute (zero when none).
	ScoringP50, ScoringMax time.Duration
	// ScoringCount and ScoringSum are the count and total of those times,
	// for a summary.
	ScoringCount int
	ScoringSum   time.Duration
	// Backlog counts the guesses queued and not yet scored (jobs waiting,
	// running, delayed or backing off); Dead the scoring jobs that gave up.
	Backlog, Dead int64
	// LiveFeeds is the open live feeds, -1 when not reported.
	LiveFeeds int
	// Exact is false when the window held more scored guesses than
	// Config.Limit: then the counts above are lower bounds.
	Exact bool
}

// Monitor reads [Snapshot]s of one engine, or of every shard of a sharded
// game. It is safe for concurrent use.
type Monitor struct {
	e   []*codemojex.Engine
	cfg Config
}

// New returns a monitor of e. A nil engine, a negative window or limit is
// an [*echomq.ArgumentError].
func New(e *codemojex.Engine, cfg *Config) (*Monitor, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	switch {
	case e == nil:
		return nil, &echomq.ArgumentError{Name: "engine", Reason: "must not be nil"}
	case c.Window < 0:
		return nil, &echomq.ArgumentError{Name: "window", Reason: "must not be negative"}
	case c.Limit < 0:
		return nil, &echomq.ArgumentError{Name: "limit", Reason: "must not be negative"}
	}
	c.Window = cmp.Or(c.Window, 5*time.Minute)
	c.Limit = cmp.Or(c.Limit, 10_000)
	return &Monitor{e: []*codemojex.Engine{e}, cfg: c}, nil
}

// NewSharded returns a monitor of every shard of a sharded game: a
// snapshot adds up the shards' (each read with Config.Limit). Errors as
// [New]; with one shard it is [New] of it.
func NewSharded(s *codemojex.Shards, cfg *Config) (*Monitor, error) {
	if s == nil {
		return nil, &echomq.ArgumentError{Name: "engine", Reason: "must not be nil"}
	}
	m, err := New(s.Shard(0), cfg)
	if err != nil {
		return nil, err
	}
	m.e = s.Engines()
	return m, nil
}

// Read takes a snapshot: one reverse read of the guess-scored stream's
// window and one read of the guess queue's counts (of each shard).
func (m *Monitor) Read(ctx context.Context) (Snapshot, error) {
	c := m.e[0].Client()
	now, err := c.EngineTime(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	s := Snapshot{At: now, LiveFeeds: -1, Exact: true}
	if m.cfg.LiveFeeds != nil {
		s.LiveFeeds = m.cfg.LiveFeeds()
	}
	var evs []echomq.Event
	for _, e := range m.e {
		got, err := e.Stream(codemojex.StreamGuessScored).Read(ctx, echomq.Since(now.Add(-m.cfg.Window)), &echomq.ReadOpts{Count: m.cfg.Limit + 1, Reverse: true})
		if err != nil {
			return Snapshot{}, err
		}
		if len(got) > m.cfg.Limit {
			got, s.Exact = got[:m.cfg.Limit], false
		}
		evs = append(evs, got...)
	}
	players := map[string]struct{}{}
	var took []time.Duration
	minute := now.Add(-time.Minute)
	for _, ev := range evs {
		players[ev.Fields.Value("player")] = struct{}{}
		if ev.Time().Before(minute) {
			continue
		}
		s.ScoredLastMinute++
		// The guess id was minted at submit, the event's at score: the
		// difference is the time the guess waited for its score.
		if g, err := echomq.ParseID(ev.Fields.Value("guess")); err == nil {
			took = append(took, max(ev.Time().Sub(g.Time()), 0))
		}
	}
	s.PlayersActive = len(players)
	if len(took) > 0 {
		slices.Sort(took)
		s.ScoringCount, s.ScoringP50, s.ScoringMax = len(took), took[(len(took)-1)/2], took[len(took)-1]
		for _, d := range took {
			s.ScoringSum += d
		}
	}
	for _, e := range m.e {
		st, err := e.Jobs().Stats(ctx)
		if err != nil {
			return Snapshot{}, err
		}
		s.Backlog += st.Waiting + st.Active + st.Delayed + st.Backoff
		s.Dead += st.Dead
	}
	return s, nil
}
