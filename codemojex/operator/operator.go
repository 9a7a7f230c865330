package operator

import (
	"cmp"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/health"
	"github.com/echomq/echomq/webkit"
)

//go:embed assets
var assets embed.FS

// Config configures [New].
type Config struct {
	// OperatorToken is what the operator signs in with; it also keys the
	// session cookies, so changing it ends every session. Required: New
	// refuses an empty token.
	OperatorToken string

	// SessionTTL is how long a sign-in lasts. Defaults to 12 hours.
	SessionTTL time.Duration

	// SecureCookies marks the cookies Secure on every response, for a
	// server behind a proxy that terminates TLS. Defaults to false: they
	// are Secure only on requests that came over TLS.
	SecureCookies bool

	// Health, when set, feeds the health page (/op/health) with the same
	// numbers /metrics exports. Defaults to nil: the page says health is
	// not monitored.
	Health *health.Monitor

	// Logger receives the operator's acts (sign-ins, rooms created, games
	// closed, grants), refused sign-ins and internal errors. Defaults to
	// slog.Default().
	Logger *slog.Logger
}

// Handler serves the operator pages under /op/. It is safe for concurrent
// use.
type Handler struct {
	e   *codemojex.Shards
	cfg Config
	log *slog.Logger
	// sessions signs the session cookies with a key derived from the
	// operator token, on the engine's clock.
	sessions *webkit.Sessions
	pages    map[string]*template.Template
	mux      *http.ServeMux

	// revoked holds the nonces of sessions signed out before they expired,
	// with their expiry, after which the cookie is refused anyway.
	mu      sync.Mutex
	revoked map[string]time.Time
}

// New returns the operator pages over an engine. It returns an
// [*echomq.ArgumentError] for a nil engine or an empty operator token, and
// does no I/O.
func New(e *codemojex.Engine, config *Config) (*Handler, error) {
	if e == nil {
		return nil, &echomq.ArgumentError{Name: "engine", Reason: "must not be nil"}
	}
	return NewSharded(codemojex.Single(e), config)
}

// NewSharded returns the operator pages of a sharded game
// (docs/codemojex.md, "Sharding"): rooms listed from every shard, each
// room, game and player acted on in its shard. With one shard it is [New].
func NewSharded(e *codemojex.Shards, config *Config) (*Handler, error) {
	var cfg Config
	if config != nil {
		cfg = *config
	}
	if cfg.OperatorToken == "" {
		return nil, &echomq.ArgumentError{Name: "operator token", Reason: "must not be empty"}
	}
	if e == nil {
		return nil, &echomq.ArgumentError{Name: "engine", Reason: "must not be nil"}
	}
	cfg.SessionTTL = cmp.Or(cfg.SessionTTL, 12*time.Hour)
	if cfg.SessionTTL < 0 {
		return nil, &echomq.ArgumentError{Name: "session TTL", Reason: "must not be negative"}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	sessions := webkit.NewSessions(cfg.OperatorToken, "codemojex operator", sessionCookie, cfg.SessionTTL)
	sessions.Now, sessions.Secure = e.Now, cfg.SecureCookies
	h := &Handler{
		e: e, cfg: cfg, log: cfg.Logger, sessions: sessions, pages: map[string]*template.Template{},
		mux: http.NewServeMux(), revoked: map[string]time.Time{},
	}
	for _, name := range []string{"signin", "rooms", "players", "health", "refused", "close"} {
		h.pages[name] = template.Must(template.New("").Funcs(funcs).ParseFS(assets, "assets/pages/layout.html", "assets/pages/"+name+".html"))
	}
	static, _ := fs.Sub(assets, "assets/static")
	m := h.mux
	m.Handle("GET /op/static/", http.StripPrefix("/op/static/", http.FileServerFS(static)))
	m.Handle("GET /op/static/base.css", webkit.StyleHandler())
	m.HandleFunc("GET /op/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/op/rooms", http.StatusSeeOther)
	})
	m.HandleFunc("GET /op/signin", h.signInPage)
	m.HandleFunc("POST /op/signin", h.signIn)
	m.HandleFunc("POST /op/signout", h.operator(h.signOut))
	m.HandleFunc("GET /op/rooms", h.operator(h.roomsPage))
	m.HandleFunc("POST /op/rooms", h.operator(h.createRoom))
	m.HandleFunc("GET /op/games/{id}/close", h.operator(h.confirmClose))
	m.HandleFunc("POST /op/games/{id}/close", h.operator(h.closeGame))
	m.HandleFunc("GET /op/players", h.operator(h.playersPage))
	m.HandleFunc("POST /op/grant", h.operator(h.grant))
	m.HandleFunc("GET /op/health", h.operator(h.healthPage))
	m.HandleFunc("/op/", func(w http.ResponseWriter, r *http.Request) {
		h.render(w, r, http.StatusNotFound, "refused", &page{Title: "Not found", Error: "No page " + r.URL.Path + "."})
	})
	return h, nil
}

// ServeHTTP serves the operator pages.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	// No script, no frames, forms only to these pages.
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	h.mux.ServeHTTP(w, r)
}

// page is what a page template sees.
type page struct {
	Title string
	// Session is the signed-in operator's session; nil on the sign-in
	// page.
	Session *session
	// Notice is the outcome of the last accepted form; Error why this one
	// was refused.
	Notice string
	Error  string

	Next string // sign-in: where to go after

	Rooms []roomRow // rooms
	Sets  []string
	Room  roomForm

	Find     string             // players: what was looked up (an id or part of a name)
	Matches  []codemojex.Player // the players whose name holds Find
	Searched bool               // Find was a name, looked up
	Player   *playerCard        // the player found
	Grant    grantForm

	Health *health.Snapshot // health: the reading; nil when not monitored

	Closing *closing // close: the game asked to close, for the confirmation
}

// CSRF is the token the page's forms carry.
func (p *page) CSRF() string {
	if p.Session == nil {
		return ""
	}
	return p.Session.CSRF
}

var funcs = template.FuncMap{
	"ms": func(ms int64) string {
		if ms == 0 {
			return ""
		}
		return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"duration": func(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() },
	"round":    func(d time.Duration) string { return d.Round(time.Millisecond).String() },
	// amount is n of a currency or a thing, its word in the singular for
	// 1 and -1: "1 key", "-1 key", "2 keys".
	"amount": func(n int64, unit string) string {
		if n == 1 || n == -1 {
			unit = strings.TrimSuffix(unit, "s")
		}
		return strconv.FormatInt(n, 10) + " " + unit
	},
}

// render writes a page with status; the notice of the last accepted form
// is shown once.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	if p.Notice == "" && status < 300 {
		p.Notice = h.takeNotice(w, r)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := h.pages[name].ExecuteTemplate(w, "layout", p); err != nil {
		h.log.Error("operator: render", "page", name, "err", err)
	}
}

// accepted ends an accepted POST: the notice is kept for the page it
// redirects to (post, redirect, get).
func (h *Handler) accepted(w http.ResponseWriter, r *http.Request, to, notice string) {
	h.setNotice(w, r, notice)
	http.Redirect(w, r, to, http.StatusSeeOther)
}
