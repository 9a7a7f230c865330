package web

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/webkit"
)

//go:embed assets
var assets embed.FS

// Config configures [New].
type Config struct {
	// BotToken is the Telegram bot token that signs Mini App initData.
	// Defaults to "": POST /web/auth/telegram answers 404.
	BotToken string
	// DevSignIn shows the sign-in by name (the API's POST /api/auth/dev
	// must be enabled too). Defaults to false.
	DevSignIn bool
	// MaxAge is how old an initData may be. Defaults to telegram.MaxAge.
	MaxAge time.Duration
	// Heartbeat is how often an idle event stream sends a comment, so
	// proxies keep it open. Defaults to 15s.
	Heartbeat time.Duration
	// EngineProbe is how often an open event stream learns whether the
	// engine answers (one probe serves every stream), so an open page says
	// when the game is out of reach and reloads itself when it is back.
	// Defaults to 2s.
	EngineProbe time.Duration
	// MaxStreams caps the live feed's open event streams (GET
	// /web/events) in all; past it a stream is refused with 503 and
	// Retry-After. Defaults to [DefaultMaxStreams].
	MaxStreams int
	// MaxStreamsPerClient caps the streams one client address holds; past
	// it 429 and Retry-After. Defaults to [DefaultMaxStreamsPerClient].
	MaxStreamsPerClient int
	// Views, when set, name the players, rooms and winners of the live
	// feed's notices. Defaults to nil: notices carry ids only.
	Views *views.Views
	// Logger receives internal errors. Defaults to slog.Default().
	Logger *slog.Logger
}

// Handler serves the web app. It is safe for concurrent use.
type Handler struct {
	e     *codemojex.Shards
	hub   *views.Hub
	cfg   Config
	log   *slog.Logger
	pages map[string]*template.Template
	mux   *http.ServeMux

	// closed ends the event streams: http.Server.Shutdown waits for
	// requests to finish, and a stream would not on its own.
	closed    chan struct{}
	closeOnce sync.Once
	caps      *webkit.StreamLimit
	engine    *probe
}

// New returns the web handler over an engine and a running hub
// (Hub.Run). It panics only if the embedded templates do not parse, which
// the tests rule out.
func New(e *codemojex.Engine, hub *views.Hub, config *Config) *Handler {
	return NewSharded(codemojex.Single(e), hub, config)
}

// NewSharded returns the web handler of a sharded game (docs/codemojex.md,
// "Sharding") over a running hub of every shard (views.NewShardedHub).
// With one shard it is [New].
func NewSharded(e *codemojex.Shards, hub *views.Hub, config *Config) *Handler {
	var cfg Config
	if config != nil {
		cfg = *config
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.EngineProbe <= 0 {
		cfg.EngineProbe = 2 * time.Second
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	if cfg.MaxStreamsPerClient <= 0 {
		cfg.MaxStreamsPerClient = DefaultMaxStreamsPerClient
	}
	h := &Handler{
		e: e, hub: hub, cfg: cfg, log: cfg.Logger, pages: map[string]*template.Template{}, mux: http.NewServeMux(), closed: make(chan struct{}),
		caps: webkit.NewStreamLimit(cfg.MaxStreams, cfg.MaxStreamsPerClient), engine: newProbe(e.Shard(0), cfg.EngineProbe),
	}
	for _, name := range []string{"lobby", "game", "results", "ledger", "notfound"} {
		h.pages[name] = template.Must(template.ParseFS(assets, "assets/pages/layout.html", "assets/pages/"+name+".html"))
	}
	static, _ := fs.Sub(assets, "assets/static")
	h.mux.Handle("GET /web/static/", http.StripPrefix("/web/static/", http.FileServerFS(static)))
	h.mux.Handle("GET /web/static/base.css", webkit.StyleHandler())
	h.mux.HandleFunc("GET /{$}", h.page("lobby"))
	h.mux.HandleFunc("GET /web/games/{id}", h.page("game"))
	h.mux.HandleFunc("GET /web/results", h.page("results"))
	h.mux.HandleFunc("GET /web/ledger", h.page("ledger"))
	h.mux.HandleFunc("GET /web/events", h.events)
	h.mux.HandleFunc("POST /web/auth/telegram", h.telegramSignIn)
	h.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		http.ServeFileFS(w, r, static, "favicon.svg")
	})
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.notFound(w, "There is no page at "+r.URL.Path+".")
	})
	return h
}

// Close ends the open event streams (and refuses new ones), so a server
// can shut down; register it with http.Server.RegisterOnShutdown. It is
// safe to call more than once.
func (h *Handler) Close() { h.closeOnce.Do(func() { close(h.closed) }) }

// ServeHTTP serves the web app.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// pageData is what a page template sees.
type pageData struct {
	Page      string
	Title     string
	Game      string
	DevSignIn bool
	Telegram  bool
	// Script: the page has a script of its own (/web/static/<page>.js).
	Script bool
	// Missing says what a not-found page did not find.
	Missing string
	// NowMS is the engine's clock as the page is rendered: the lobby's
	// countdowns run from ends_ms, which is on that clock, not the
	// device's.
	NowMS int64
}

// gameCheck bounds the read that tells a game page from a not-found one;
// past it (the engine out of reach) the page is served and loads, or
// retries, on its own.
const gameCheck = 2 * time.Second

func (h *Handler) page(name string) http.HandlerFunc {
	titles := map[string]string{"lobby": "Lobby", "game": "Game", "results": "Today's results", "ledger": "Your wallet"}
	return func(w http.ResponseWriter, r *http.Request) {
		d := pageData{Page: name, Title: titles[name], Game: r.PathValue("id"), DevSignIn: h.cfg.DevSignIn, Telegram: h.cfg.BotToken != "", Script: true, NowMS: h.e.Now().UnixMilli()}
		if name == "game" {
			ctx, cancel := context.WithTimeout(r.Context(), gameCheck)
			_, err := h.e.Game(ctx, d.Game)
			cancel()
			if errors.Is(err, codemojex.ErrNotFound) || errors.Is(err, echomq.ErrInvalidArgument) {
				h.notFound(w, "There is no game "+strconv.Quote(d.Game)+": it may have been mistyped.")
				return
			}
		}
		h.render(w, http.StatusOK, name, d)
	}
}

// notFound answers 404 with a page that says what was not found and
// where to go.
func (h *Handler) notFound(w http.ResponseWriter, missing string) {
	h.render(w, http.StatusNotFound, "notfound", pageData{
		Page: "notfound", Title: "Not found", Missing: missing,
		DevSignIn: h.cfg.DevSignIn, Telegram: h.cfg.BotToken != "", NowMS: h.e.Now().UnixMilli(),
	})
}

func (h *Handler) render(w http.ResponseWriter, status int, name string, d pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := h.pages[name].ExecuteTemplate(w, "layout", d); err != nil {
		h.log.Error("web: render", "page", name, "err", err)
	}
}
