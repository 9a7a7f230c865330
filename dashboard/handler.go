package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/webkit"
)

// Handler is the dashboard: an [http.Handler] serving its pages, live
// updates and writes. It is safe for concurrent use. Make it with [New];
// [Handler.Close] ends the live update streams so a server can shut down.
type Handler struct {
	client   *echomq.Client
	cfg      Config
	queues   []*queueView
	byName   map[string]*queueView
	archiver *archive.Archiver // nil without Config.Archive
	policies map[string]archive.Policy
	sessions *webkit.Sessions // nil without a token
	pages    *pages
	mux      *http.ServeMux
	rates    *rateCache

	live      *webkit.StreamLimit // live update streams open
	closeOnce sync.Once
	closed    chan struct{}
}

// queueView is one configured queue with its handles.
type queueView struct {
	name        string
	streams     []string // the configured ones
	projections []string
	lanes       *lanes.Queue
	pinLanes    bool // Queue.Lanes: shown whether or not it has jobs
	fixed       bool // Queue.Fixed: no discovery
}

// New checks cfg and returns the dashboard of client's engine. Errors,
// all before any I/O: an *echomq.ArgumentError for a nil client, a queue
// without a name or listed twice, a token shorter than [MinTokenLen] or a
// PageSize above [MaxPageSize]; the *echomq.NameError of a bad queue,
// stream or projection name; the errors of lanes.New and archive.New.
func New(client *echomq.Client, cfg *Config) (*Handler, error) {
	if client == nil {
		return nil, &echomq.ArgumentError{Name: "client", Reason: "must not be nil"}
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	c = c.withDefaults()
	if c.Token != "" && len(c.Token) < MinTokenLen {
		return nil, &echomq.ArgumentError{Name: "Token", Reason: fmt.Sprintf("must be at least %d bytes (it alone guards the writes)", MinTokenLen)}
	}
	if c.PageSize > MaxPageSize {
		return nil, &echomq.ArgumentError{Name: "PageSize", Reason: fmt.Sprintf("must be at most %d", MaxPageSize)}
	}
	if c.Prefix != "" && (!strings.HasPrefix(c.Prefix, "/") || strings.HasSuffix(c.Prefix, "/")) {
		return nil, &echomq.ArgumentError{Name: "Prefix", Reason: `must start with "/" and not end with one (like "/ops")`}
	}
	h := &Handler{
		client: client, cfg: c, byName: map[string]*queueView{}, policies: map[string]archive.Policy{},
		rates: newRateCache(), closed: make(chan struct{}), live: webkit.NewStreamLimit(c.MaxLive, 0),
	}
	for _, q := range c.Queues {
		v, err := newQueueView(client, q)
		if err != nil {
			return nil, err
		}
		if h.byName[v.name] != nil {
			return nil, &echomq.ArgumentError{Name: "Queues", Reason: fmt.Sprintf("queue %q is listed twice", v.name)}
		}
		h.queues = append(h.queues, v)
		h.byName[v.name] = v
	}
	for _, p := range c.ArchivePolicies {
		if err := p.Validate(); err != nil {
			return nil, err
		}
		h.policies[p.Queue+"/"+p.Stream] = p
	}
	if c.Archive != nil {
		a, err := archive.New(client, c.Archive, nil)
		if err != nil {
			return nil, err
		}
		h.archiver = a
	}
	if c.Token != "" {
		h.sessions = newSessions(&c)
	}
	p, err := loadPages()
	if err != nil {
		return nil, err
	}
	h.pages = p
	h.routes()
	return h, nil
}

func newQueueView(client *echomq.Client, q Queue) (*queueView, error) {
	if q.Name == "" {
		return nil, &echomq.ArgumentError{Name: "Queue.Name", Reason: "must not be empty"}
	}
	v := &queueView{name: q.Name, pinLanes: q.Lanes, fixed: q.Fixed}
	for _, s := range q.Streams {
		if err := client.Stream(q.Name, s).Err(); err != nil {
			return nil, err
		}
		if !slices.Contains(v.streams, s) {
			v.streams = append(v.streams, s)
		}
	}
	for _, name := range q.Projections {
		if err := client.Stream(q.Name, name).Err(); err != nil { // the same grammar
			return nil, err
		}
		v.projections = append(v.projections, name)
	}
	if err := client.Stream(q.Name, "x").Err(); err != nil {
		return nil, err
	}
	lq, err := lanes.New(client, q.Name, nil)
	if err != nil {
		return nil, err
	}
	v.lanes = lq
	return v, nil
}

// Writable reports whether the handler serves writes: a token is set and
// the handler is not read-only.
func (h *Handler) Writable() bool { return h.cfg.Token != "" && !h.cfg.ReadOnly }

// Close ends the live update streams (each says "shutdown" to its browser,
// which reconnects later), so that an [http.Server.Shutdown] is not held up
// by them; new ones are refused. Pages are still served. It is idempotent.
func (h *Handler) Close() error {
	h.closeOnce.Do(func() { close(h.closed) })
	return nil
}

// ServeHTTP serves the dashboard.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) routes() {
	m := http.NewServeMux()
	m.Handle("GET /static/", http.StripPrefix("/static/", staticHandler()))
	m.Handle("GET /static/base.css", webkit.StyleHandler())
	m.HandleFunc("GET /login", h.loginPage)
	m.HandleFunc("POST /login", h.login)
	m.HandleFunc("POST /logout", h.logout)
	read := func(pattern string, fn func(http.ResponseWriter, *http.Request)) {
		m.Handle(pattern, h.reader(h.engineUp(http.HandlerFunc(fn))))
	}
	write := func(pattern string, fn func(http.ResponseWriter, *http.Request)) {
		m.Handle(pattern, h.writer(h.engineUp(http.HandlerFunc(fn))))
	}
	read("GET /{$}", h.overview)
	m.Handle("GET /events", h.reader(http.HandlerFunc(h.events))) // reports an outage in its updates
	read("GET /q/{queue}/streams/{stream}", h.streamPage)
	read("GET /q/{queue}/streams/{stream}/groups", h.groupsPage)
	read("GET /q/{queue}/partitioned/{stream}", h.partitionsPage)
	read("GET /q/{queue}/streams/{stream}/dead", h.deadPage)
	read("GET /q/{queue}/streams/{stream}/dead/{id}", h.deadLetterPage)
	write("POST /q/{queue}/streams/{stream}/dead/replay", h.deadReplay)
	write("POST /q/{queue}/streams/{stream}/dead/purge", h.deadPurge)
	read("GET /q/{queue}/lanes", h.lanesPage)
	write("POST /q/{queue}/lanes/retry", h.lanesRetry)
	write("POST /q/{queue}/lanes/pause", h.lanesPause)
	write("POST /q/{queue}/lanes/resume", h.lanesResume)
	read("GET /archive", h.archivePage)
	read("GET /archive/{queue}/{stream}/verify", h.archiveVerify)
	read("GET /projections", h.projectionsPage)
	m.Handle("/", h.reader(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, errors.New("no such page"))
	})))
	h.mux = m
}

// prefix returns the path the handler is mounted under.
func (h *Handler) prefix(r *http.Request) string {
	if h.cfg.Prefix != "" {
		return h.cfg.Prefix
	}
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil || !strings.HasSuffix(u.Path, r.URL.Path) {
		return ""
	}
	p := strings.TrimSuffix(u.Path[:len(u.Path)-len(r.URL.Path)], "/")
	// Links and redirects start with it: it must stay a local path.
	if p != "" && (p[0] != '/' || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\"<>'?#") ||
		strings.ContainsFunc(p, func(c rune) bool { return c < ' ' })) {
		return ""
	}
	return p
}

// queue returns the configured queue named by the path, or answers 404.
func (h *Handler) queue(w http.ResponseWriter, r *http.Request) (*queueView, bool) {
	v := h.byName[r.PathValue("queue")]
	if v == nil {
		h.fail(w, r, http.StatusNotFound, fmt.Errorf("queue %q is not on this dashboard", r.PathValue("queue")))
		return nil, false
	}
	return v, true
}

// stream returns the configured stream named by the path (listed, or
// archived when an archive is set), or answers 404.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request) (*queueView, *echomq.Stream, bool) {
	v, ok := h.queue(w, r)
	if !ok {
		return nil, nil, false
	}
	name := r.PathValue("stream")
	if slices.Contains(v.streams, name) {
		return v, h.client.Stream(v.name, name), true
	}
	streams, err := h.streamsOf(r.Context(), v)
	if err != nil && !slices.Contains(streams, name) {
		h.fail(w, r, http.StatusBadGateway, err)
		return nil, nil, false
	}
	if !slices.Contains(streams, name) {
		h.fail(w, r, http.StatusNotFound, fmt.Errorf("stream %q of queue %q is not on this dashboard", name, v.name))
		return nil, nil, false
	}
	return v, h.client.Stream(v.name, name), true
}

// streamsOf returns the streams shown for queue v: the configured ones,
// then those discovered in the engine (unless Queue.Fixed), then those of
// the queue archived in Config.Archive. An error is reported with the
// streams found so far.
func (h *Handler) streamsOf(ctx context.Context, v *queueView) ([]string, error) {
	out := slices.Clone(v.streams)
	add := func(names []string) {
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	var errs []error
	if !v.fixed {
		names, err := h.client.StreamsPrefix(v.name, "").Names(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("stream discovery: %w", err))
		}
		add(names)
	}
	if h.cfg.Archive != nil {
		refs, err := archive.Streams(ctx, h.cfg.Archive)
		if err != nil {
			errs = append(errs, fmt.Errorf("archive store: %w", err))
		}
		for _, ref := range refs {
			if ref.Queue == v.name {
				add([]string{ref.Stream})
			}
		}
	}
	return out, errors.Join(errs...)
}

// lanesOf returns the queue's lanes when they are shown: always with
// Queue.Lanes, never with Queue.Fixed without it, else when the queue has
// lanes (a job was ever enqueued, or the queue is paused), with their
// stats.
func (h *Handler) lanesOf(ctx context.Context, v *queueView) (*lanes.Queue, bool, error) {
	if v.pinLanes {
		return v.lanes, true, nil
	}
	if v.fixed {
		return nil, false, nil
	}
	st, err := v.lanes.Stats(ctx)
	if err != nil {
		return nil, false, err
	}
	return v.lanes, st.Enqueued > 0 || st.Paused, nil
}
