package api

import (
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
)

// Config configures [New].
type Config struct {
	// OperatorToken guards the operator routes (/api/op/…), sent as
	// "Authorization: Bearer <token>". Defaults to "": the operator routes
	// answer 401.
	OperatorToken string
	// DevSignIn enables POST /api/auth/dev, the sign-in by name that
	// trusts whoever calls it (for development and demos). Defaults to
	// false: it answers 404.
	DevSignIn bool
	// MaxWait is the longest a GET /api/guesses/{id}?wait= or a
	// POST /api/games/{id}/guess?wait= may wait for a score. Defaults to
	// 30s.
	MaxWait time.Duration
	// Logger receives internal errors. Defaults to slog.Default().
	Logger *slog.Logger
}

// Server is the JSON API of codemojex over an engine (or the shards of a
// sharded game), its views and a hub.
type Server struct {
	e     *codemojex.Shards
	views *views.Views
	hub   *views.Hub
	cfg   Config
	log   *slog.Logger
	mux   *http.ServeMux

	closed    chan struct{} // closed by Close: long-polls answer at once
	closeOnce sync.Once
}

// Close ends every waiting long-poll (GET /api/guesses/{id}?wait=) at
// once with the guess as it stands, and makes later waits answer without
// waiting: register it with http.Server.RegisterOnShutdown, so a shutdown
// does not sit out the waits.
func (s *Server) Close() { s.closeOnce.Do(func() { close(s.closed) }) }

// New returns the API server. The views and the hub must be running
// (Views.Run, Hub.Run) for the read models and the waits to move.
func New(e *codemojex.Engine, v *views.Views, hub *views.Hub, config *Config) *Server {
	return NewSharded(codemojex.Single(e), v, hub, config)
}

// NewSharded returns the API server of a sharded game (docs/codemojex.md,
// "Sharding"): rooms and games are read in their shard, a player's acts in
// their home shard, the public reads from views of every shard
// (views.NewSharded, views.NewShardedHub). With one shard it is [New].
func NewSharded(e *codemojex.Shards, v *views.Views, hub *views.Hub, config *Config) *Server {
	var cfg Config
	if config != nil {
		cfg = *config
	}
	cfg.MaxWait = cmp.Or(cfg.MaxWait, 30*time.Second)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{e: e, views: v, hub: hub, cfg: cfg, log: cfg.Logger, mux: http.NewServeMux(), closed: make(chan struct{})}
	s.routes()
	return s
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /api/health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "shards": s.e.Len()})
	})
	// Public reads.
	m.HandleFunc("GET /api/rooms", s.lobby)
	m.HandleFunc("GET /api/rooms/{id}", s.room)
	m.HandleFunc("GET /api/games/{id}", s.game)
	m.HandleFunc("GET /api/games/{id}/leaderboard", s.leaderboard)
	m.HandleFunc("GET /api/feed", s.feed)
	m.HandleFunc("GET /api/results", s.results)
	// Sessions.
	m.HandleFunc("POST /api/auth/dev", s.devSignIn)
	m.HandleFunc("POST /api/auth/signout", s.signOut)
	// A player's own acts and reads.
	m.HandleFunc("GET /api/me", s.player(s.me))
	m.HandleFunc("GET /api/balance", s.player(s.balance))
	m.HandleFunc("GET /api/ledger", s.player(s.ledger))
	m.HandleFunc("POST /api/convert", s.player(s.convert))
	m.HandleFunc("POST /api/rooms/{id}/join", s.player(s.join))
	m.HandleFunc("POST /api/games/{id}/guess", s.player(s.guess))
	m.HandleFunc("GET /api/games/{id}/history", s.player(s.history))
	m.HandleFunc("GET /api/guesses/{id}", s.player(s.guessOne))
	// Operator.
	m.HandleFunc("POST /api/op/rooms", s.operator(s.createRoom))
	m.HandleFunc("POST /api/op/grant", s.operator(s.grant))
	m.HandleFunc("POST /api/op/games/{id}/close", s.operator(s.closeGame))
	m.HandleFunc("POST /api/op/sweep", s.operator(s.sweep))
	m.HandleFunc("/api/", s.noRoute)
}

// methods are the methods a route may take.
var methods = []string{http.MethodGet, http.MethodPost}

// noRoute answers what no route took: 405 with Allow when the path is a
// route taking other methods, else 404.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range methods {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/api/" && pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		if slices.Contains(allow, http.MethodGet) {
			allow = append(allow, http.MethodHead)
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.failWith(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed, r.Method+" "+r.URL.Path+" is not allowed; use "+strings.Join(allow, " or "))
		return
	}
	s.failWith(w, http.StatusNotFound, CodeNotFound, "no route "+r.Method+" "+r.URL.Path)
}

// tokenOK compares a presented operator token with the configured one in
// constant time over their SHA-256 digests, so neither its bytes nor its
// length leak through timing; an unset token matches nothing.
func tokenOK(got, want string) bool {
	if want == "" {
		return false
	}
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// bearer returns the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// player wraps a handler that acts for the signed-in player: no valid
// session is a 401.
func (s *Server) player(h func(http.ResponseWriter, *http.Request, codemojex.Player)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := s.e.Authenticate(r.Context(), bearer(r))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		h(w, r, p)
	}
}

// operator wraps an operator handler: the bearer must be the operator token.
func (s *Server) operator(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok := bearer(r)
		if !tokenOK(tok, s.cfg.OperatorToken) {
			s.failWith(w, http.StatusUnauthorized, CodeUnauthorized, "operator token required")
			return
		}
		h(w, r)
	}
}

// viewer returns the signed-in player of an optional session.
func (s *Server) viewer(r *http.Request) (codemojex.Player, bool) {
	if bearer(r) == "" {
		return codemojex.Player{}, false
	}
	p, err := s.e.Authenticate(r.Context(), bearer(r))
	return p, err == nil
}
