package dashboard

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq"
)

//go:embed assets
var assets embed.FS

func staticHandler() http.Handler {
	sub, _ := fs.Sub(assets, "assets/static") // a fixed, embedded path
	fsrv := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		fsrv.ServeHTTP(w, r)
	})
}

// pages are the parsed templates, one set per page over the layout.
type pages struct{ byName map[string]*template.Template }

var pageNames = []string{"overview", "stream", "groups", "dead", "deadletter", "lanes", "archive", "verify", "projections", "partitions", "login", "error", "unreachable"}

func loadPages() (*pages, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "assets/templates/layout.html")
	if err != nil {
		return nil, err
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, name := range pageNames {
		t, err := template.Must(base.Clone()).ParseFS(assets, "assets/templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		p.byName[name] = t
	}
	return p, nil
}

// view is what the layout renders around every page.
type view struct {
	Title    string // the page's title
	Brand    string // Config.Title
	Prefix   string
	Nav      string // the current section, for aria-current
	SignedIn bool
	Auth     bool // a token is configured
	Writable bool
	ReadOnly bool
	CSRF     string
	Events   string // the live update URL, "" for none
	Flash    string
	Retry    int // seconds after which the page reloads itself, 0 for never
	Data     any
}

// titled is implemented by page data that names its page.
type titled interface{ title() (string, string) }

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	sess, signedIn := h.session(r)
	v := view{
		Brand: h.cfg.Title, Prefix: h.prefix(r), SignedIn: signedIn, Auth: h.sessions != nil,
		Writable: h.Writable() && signedIn, ReadOnly: h.cfg.ReadOnly, CSRF: sess.CSRF,
		Flash: flash(r), Data: data,
	}
	if t, ok := data.(titled); ok {
		v.Title, v.Nav = t.title()
	}
	if l, ok := data.(interface{ live() string }); ok {
		v.Events = l.live()
	}
	if rt, ok := data.(interface{ retry() int }); ok {
		v.Retry = rt.retry()
	}
	var buf bytes.Buffer
	if err := h.pages.byName[name].ExecuteTemplate(&buf, "layout.html", v); err != nil {
		h.cfg.Logger.Error("dashboard: render", "page", name, "err", err)
		http.Error(w, "dashboard: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

type errorData struct {
	Status  int
	Message string
}

func (d errorData) title() (string, string) { return http.StatusText(d.Status), "" }

// fail answers with status and an error page that says what went wrong.
// Server-side failures are logged; their text is shown too (the operator
// is signed in or the dashboard is open by choice).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	if status >= 500 {
		h.cfg.Logger.Error("dashboard: request failed", "path", r.URL.Path, "err", err)
	}
	if r.URL.Path == "/events" || strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		http.Error(w, err.Error(), status)
		return
	}
	h.render(w, r, status, "error", errorData{Status: status, Message: err.Error()})
}

// flashes are the fixed messages a write's redirect can ask for; the
// query carries the code and a ref that is checked to be an id or name.
var flashes = map[string]string{
	"replayed":    "Replayed %s.",
	"purged":      "Purged %s dead letters.",
	"retried":     "Retried dead job %s.",
	"paused":      "Paused %s.",
	"resumed":     "Resumed %s.",
	"unchanged":   "%s was already in that state.",
	"deadgone":    "Dead letter %s was already gone.",
	"jobgone":     "Dead job %s was already gone.",
	"allretried":  "Retried %s dead jobs.",
	"allreplayed": "Replayed %s dead letters, oldest first.",
}

func flash(r *http.Request) string {
	q := r.URL.Query()
	f, ok := flashes[q.Get("done")]
	if !ok {
		return ""
	}
	ref := q.Get("ref")
	if len(ref) > 300 || strings.ContainsFunc(ref, func(c rune) bool { return c < ' ' }) {
		ref = "?"
	}
	return fmt.Sprintf(f, ref)
}

// done redirects a write back to page with a flash message.
func done(w http.ResponseWriter, r *http.Request, page, code, ref string) {
	http.Redirect(w, r, page+"?done="+code+"&ref="+url.QueryEscape(ref), http.StatusSeeOther) //nolint:gosec // G710: page is built from the prefix and checked names
}

var funcs = template.FuncMap{
	"path": func(prefix string, parts ...string) string {
		var b strings.Builder
		b.WriteString(prefix)
		for _, p := range parts {
			b.WriteByte('/')
			b.WriteString(url.PathEscape(p))
		}
		return b.String()
	},
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05.000Z")
	},
	"iso": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	},
	"dur":   fmtDur,
	"bytes": fmtBytes,
	"count": func(c counted) string { return c.String() },
	"num":   func(n int64) string { return strconv.FormatInt(n, 10) },
	"id": func(id echomq.ID) string {
		if id.IsZero() {
			return "—"
		}
		return id.String()
	},
	"chart": chartSVG,
	"pairs": pairs,
	"int64": func(n int) int64 { return int64(n) },
}

// pairs splits fields into [name, value] pairs for a table.
func pairs(f echomq.Fields) [][2]string {
	out := make([][2]string, 0, len(f)/2)
	for j := 0; j+1 < len(f); j += 2 {
		out = append(out, [2]string{f[j], f[j+1]})
	}
	return out
}

func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "—"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < time.Hour:
		return strconv.FormatFloat(d.Minutes(), 'f', 1, 64) + " min"
	case d < 48*time.Hour:
		return strconv.FormatFloat(d.Hours(), 'f', 1, 64) + " h"
	default:
		return strconv.FormatFloat(d.Hours()/24, 'f', 1, 64) + " d"
	}
}

func fmtBytes(n int64) string {
	switch {
	case n < 0:
		return "—"
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	case n < 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	default:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	}
}
