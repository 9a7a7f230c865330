package sim

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures [Run].
type Config struct {
	// URL is the base URL of a running codemojex server, such as
	// "http://127.0.0.1:8080". Required.
	URL string
	// OperatorToken lets the simulation create its room and grant its
	// players keys. Defaults to "": the players play on their starter
	// balance, in Room.
	OperatorToken string
	// Players is how many players play at once. Defaults to 10.
	Players int
	// Guesses is how many guesses each player submits. Defaults to 20.
	Guesses int
	// Room is the room the players join. Defaults to "": a new paid classic
	// room is created (needs OperatorToken). Against a sharded server (its
	// GET /api/health reports shards > 1) it must be empty: one room is
	// created in every shard, and the players spread over them (player i
	// joins the room of shard i mod N, whatever their home shard).
	Room string
	// Strategy is "climb" (keep the best guess so far and try a small change
	// of it: players converge on the secret and crack games) or "random".
	// Defaults to "climb".
	Strategy string
	// Wait is the longest a player waits for one score. Defaults to 30s.
	Wait time.Duration
	// HTTP is the client to use. Defaults to one with a connection per
	// player.
	HTTP *http.Client
	// Progress, when set, receives a line every second while guessing.
	Progress io.Writer
	// EngineURL, when set, is the server's Valkey/Redis
	// (redis://host:port): its INFO commandstats is read before and after
	// the guessing phase, and the report gives the engine commands per
	// scored guess, end to end (every client of that server counts, so
	// run nothing else on it). Several servers, such as a cluster's
	// masters, are given separated by commas: the report then gives each
	// one's share too ([Report.Engines]). Defaults to "": not measured.
	EngineURL string
}

// Report is what a simulation measured over its guessing phase (sign-in,
// grants and joins happen before the clock starts).
type Report struct {
	Players int `json:"players"`
	// Shards is the server's shard count; Rooms the rooms played, one per
	// shard (shard 0's first).
	Shards   int           `json:"shards"`
	Rooms    []string      `json:"rooms"`
	Accepted int64         `json:"accepted"`
	Scored   int64         `json:"scored"`
	Elapsed  time.Duration `json:"elapsed"`
	// AcceptedPerSec and ScoredPerSec are guesses per second end to end.
	AcceptedPerSec float64 `json:"accepted_per_sec"`
	ScoredPerSec   float64 `json:"scored_per_sec"`
	// SubmitP50 and SubmitP99 are the latencies of the submit request.
	// It asks to wait for the score (POST /api/games/{id}/guess?wait=), so
	// for a guess scored within the wait they are its submit→score time.
	SubmitP50 time.Duration `json:"submit_p50"`
	SubmitP99 time.Duration `json:"submit_p99"`
	// P50, P90, P99 and Max are the latencies from submit to score.
	P50 time.Duration `json:"p50"`
	P90 time.Duration `json:"p90"`
	P99 time.Duration `json:"p99"`
	Max time.Duration `json:"max"`
	// Cracks counts the guesses that scored 600; Closed the guesses refused
	// because the game had just closed (the player joined the next one).
	Cracks       int64 `json:"cracks"`
	Closed       int64 `json:"closed"`
	Insufficient int64 `json:"insufficient"`
	// Unavailable counts the requests answered 503 or not answered (the
	// server or its engine out of reach); each was tried again.
	Unavailable int64 `json:"unavailable"`
	Errors      int64 `json:"errors"`
	// Commands is how many commands the engine ran during the guessing
	// phase, and CommandsPerGuess that per scored guess (both 0 without
	// [Config.EngineURL]).
	Commands         int64   `json:"commands,omitempty"`
	CommandsPerGuess float64 `json:"commands_per_guess,omitempty"`
	// Engines, for an EngineURL of several servers, is each one's commands
	// over the guessing phase, in the order given.
	Engines []EngineCommands `json:"engines,omitempty"`
}

// EngineCommands is one server's share of a run's engine commands.
type EngineCommands struct {
	URL      string  `json:"url"`
	Commands int64   `json:"commands"`
	Share    float64 `json:"share"`
}

// String renders the report on one line.
func (r Report) String() string {
	return fmt.Sprintf("%d players: %d guesses accepted, %d scored in %s: %.0f accepted/s, %.0f scored/s; submit p50 %s p99 %s; submit→score p50 %s p90 %s p99 %s max %s; %d cracks, %d refused (game closed), %d insufficient, %d unavailable (tried again), %d errors",
		r.Players, r.Accepted, r.Scored, r.Elapsed.Round(time.Millisecond), r.AcceptedPerSec, r.ScoredPerSec,
		r.SubmitP50.Round(100*time.Microsecond), r.SubmitP99.Round(100*time.Microsecond), r.P50.Round(100*time.Microsecond), r.P90.Round(100*time.Microsecond), r.P99.Round(100*time.Microsecond), r.Max.Round(100*time.Microsecond),
		r.Cracks, r.Closed, r.Insufficient, r.Unavailable, r.Errors) + r.commandsLine() + r.shardsLine()
}

func (r Report) shardsLine() string {
	if r.Shards < 2 {
		return ""
	}
	return fmt.Sprintf("; %d shards, a room in each", r.Shards)
}

func (r Report) commandsLine() string {
	if r.Commands == 0 {
		return ""
	}
	line := fmt.Sprintf("; engine %d commands, %.1f per scored guess", r.Commands, r.CommandsPerGuess)
	if len(r.Engines) > 1 {
		var parts []string
		for _, e := range r.Engines {
			parts = append(parts, fmt.Sprintf("%s %.1f %%", e.URL, 100*e.Share))
		}
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	return line
}

// Run plays cfg.Players simulated players against the server at cfg.URL
// and reports the guesses accepted and scored per second and the latency
// from submit to score.
func Run(ctx context.Context, config *Config) (Report, error) {
	var cfg Config
	if config != nil {
		cfg = *config
	}
	if cfg.URL == "" {
		return Report{}, errors.New("sim: no server URL: give one with --url (or leave --url empty on the command line to start a server in process)")
	}
	cfg.Players = cmp.Or(cfg.Players, 10)
	cfg.Guesses = cmp.Or(cfg.Guesses, 20)
	cfg.Strategy = cmp.Or(cfg.Strategy, "climb")
	cfg.Wait = cmp.Or(cfg.Wait, 30*time.Second)
	if cfg.Players < 1 || cfg.Guesses < 1 {
		return Report{}, fmt.Errorf("sim: --players (%d) and --guesses (%d) must be positive", cfg.Players, cfg.Guesses)
	}
	if cfg.Strategy != "climb" && cfg.Strategy != "random" {
		return Report{}, fmt.Errorf("sim: --strategy %q is not climb or random", cfg.Strategy)
	}
	hc := cfg.HTTP
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns, tr.MaxIdleConnsPerHost = cfg.Players*2, cfg.Players*2
		hc = &http.Client{Transport: tr}
		defer tr.CloseIdleConnections()
	}
	c := &client{base: cfg.URL, http: hc}
	var health struct {
		Shards int `json:"shards"` // 0 from a server older than shards
	}
	if err := c.do(ctx, "GET", "/api/health", "", nil, &health); err != nil {
		return Report{}, fmt.Errorf("sim: server health: %w", err)
	}
	shards := max(health.Shards, 1)
	if shards > 1 && cfg.Room != "" {
		return Report{}, fmt.Errorf("sim: the server runs %d shards: leave --room empty (the sim creates a room in every shard and spreads the players over them)", shards)
	}
	rooms := []string{cfg.Room}
	if cfg.Room == "" {
		if cfg.OperatorToken == "" {
			return Report{}, errors.New("sim: give a room with --room, or the operator token (--operator-token or CODEMOJEX_OPERATOR_TOKEN) to create one")
		}
		rooms = make([]string, shards)
		for k := range rooms {
			var out struct {
				// Room is the new room; its id is "room" (older servers: "id").
				Room struct{ Room, ID string } `json:"room"`
			}
			spec := map[string]any{"name": "Simulation", "set": "animals", "duration": "1h", "prize": 1000, "fee": 1}
			if shards > 1 {
				spec["shard"] = k
			}
			if err := c.do(ctx, "POST", "/api/op/rooms", cfg.OperatorToken, spec, &out); err != nil {
				return Report{}, fmt.Errorf("sim: create room: %w", err)
			}
			rooms[k] = cmp.Or(out.Room.Room, out.Room.ID)
		}
	}
	run := make([]byte, 4)
	_, _ = rand.Read(run)
	tag := hex.EncodeToString(run)

	st := &stats{}
	players := make([]*player, cfg.Players)
	setup := make(chan error, cfg.Players)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64) // bound the set-up burst
	for i := range players {
		pc := c
		if cfg.HTTP == nil {
			h, done := playerHTTP(cfg.URL, i, hc)
			defer done()
			pc = &client{base: cfg.URL, http: h}
		}
		players[i] = &player{c: pc, cfg: &cfg, st: st, name: fmt.Sprintf("sim-%s-%d", tag, i), seat: i, rooms: rooms}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			setup <- players[i].setUp(ctx)
		})
	}
	wg.Wait()
	close(setup)
	for err := range setup {
		if err != nil {
			return Report{}, fmt.Errorf("sim: set up a player: %w", err)
		}
	}

	var engines []string
	if cfg.EngineURL != "" {
		engines = strings.Split(cfg.EngineURL, ",")
	}
	before := make([]int64, len(engines))
	for i, u := range engines {
		var err error
		if before[i], err = engineCalls(ctx, strings.TrimSpace(u)); err != nil {
			return Report{}, fmt.Errorf("sim: --engine-stats: %w", err)
		}
	}
	start := time.Now()
	stop := progress(ctx, cfg.Progress, st, start)
	for _, p := range players {
		wg.Go(func() { p.play(ctx) })
	}
	wg.Wait()
	stop()
	rep := st.report(cfg.Players, time.Since(start))
	rep.Shards, rep.Rooms = shards, rooms
	for i, u := range engines {
		after, err := engineCalls(ctx, strings.TrimSpace(u))
		if err != nil {
			return Report{}, fmt.Errorf("sim: --engine-stats: %w", err)
		}
		// The INFO before is counted by the one after, which does not count
		// itself yet.
		n := after - before[i] - 1
		rep.Commands += n
		rep.Engines = append(rep.Engines, EngineCommands{URL: strings.TrimSpace(u), Commands: n})
	}
	if len(engines) > 0 && rep.Scored > 0 {
		rep.CommandsPerGuess = float64(rep.Commands) / float64(rep.Scored)
	}
	if len(engines) > 1 && rep.Commands > 0 {
		for i := range rep.Engines {
			rep.Engines[i].Share = float64(rep.Engines[i].Commands) / float64(rep.Commands)
		}
	} else {
		rep.Engines = nil
	}
	return rep, ctx.Err()
}

// stats are the counters all players share.
type stats struct {
	accepted, scored, cracks, closed, insufficient, unavailable, errors atomic.Int64

	mu        sync.Mutex
	latencies []time.Duration
	submits   []time.Duration
}

func (s *stats) record(d time.Duration) {
	s.mu.Lock()
	s.latencies = append(s.latencies, d)
	s.mu.Unlock()
}

func (s *stats) recordSubmit(d time.Duration) {
	s.mu.Lock()
	s.submits = append(s.submits, d)
	s.mu.Unlock()
}

// percentile returns the p-th latency of sorted ones (0 for none).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

func (s *stats) report(players int, elapsed time.Duration) Report {
	r := Report{
		Players: players, Accepted: s.accepted.Load(), Scored: s.scored.Load(), Elapsed: elapsed,
		Cracks: s.cracks.Load(), Closed: s.closed.Load(), Insufficient: s.insufficient.Load(), Unavailable: s.unavailable.Load(), Errors: s.errors.Load(),
	}
	if secs := elapsed.Seconds(); secs > 0 {
		r.AcceptedPerSec, r.ScoredPerSec = float64(r.Accepted)/secs, float64(r.Scored)/secs
	}
	s.mu.Lock()
	lat, sub := slices.Clone(s.latencies), slices.Clone(s.submits)
	s.mu.Unlock()
	slices.Sort(lat)
	slices.Sort(sub)
	r.SubmitP50, r.SubmitP99 = percentile(sub, 0.50), percentile(sub, 0.99)
	r.P50, r.P90, r.P99 = percentile(lat, 0.50), percentile(lat, 0.90), percentile(lat, 0.99)
	if len(lat) > 0 {
		r.Max = lat[len(lat)-1]
	}
	return r
}

func progress(ctx context.Context, w io.Writer, st *stats, start time.Time) (stop func()) {
	if w == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fmt.Fprintf(w, "%5.1fs  accepted %d  scored %d  cracks %d\n", time.Since(start).Seconds(), st.accepted.Load(), st.scored.Load(), st.cracks.Load())
			}
		}
	}()
	return func() { cancel(); <-done }
}
