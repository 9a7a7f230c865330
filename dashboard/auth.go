package dashboard

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/echomq/echomq/webkit"
)

// cookieName is the session cookie's name.
const cookieName = "emq_dashboard"

// newSessions returns the dashboard's sessions, signed with a key derived
// from the token: the same token gives the same key on every replica and
// after a restart, and a new token ends every session.
func newSessions(c *Config) *webkit.Sessions {
	return webkit.NewSessions(c.Token, "echomq dashboard", cookieName, c.SessionTTL)
}

// session returns the request's valid session; ok is false without one
// (or without a token, when there is nothing to sign in to).
func (h *Handler) session(r *http.Request) (_ webkit.Session, ok bool) {
	if h.sessions == nil {
		return webkit.Session{}, false
	}
	return h.sessions.Read(r)
}

// reader guards a page: with a token, a signed-in session is needed (a
// browser is sent to the sign-in page, anything else gets 401).
func (h *Handler) reader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := h.session(r); h.sessions != nil && !ok {
			if r.Method == http.MethodGet && r.URL.Path != "/events" {
				//nolint:gosec // G710: a local path: the prefix is checked by prefix(), the rest is escaped
				http.Redirect(w, r, h.prefix(r)+"/login?next="+url.QueryEscape(h.prefix(r)+r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			h.fail(w, r, http.StatusUnauthorized, errors.New("sign in first"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Refusals of writes, in the order they are checked.
var (
	errReadOnly = errors.New("the dashboard is read-only: writes are off")
	errNoToken  = errors.New("writes are off: the dashboard has no token (set one to turn them on)")
	errSignIn   = errors.New("sign in with the dashboard's token first")
)

// writer guards a write: it must be enabled, signed in, same-origin and
// carry the session's CSRF token. Nothing is written otherwise.
func (h *Handler) writer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case h.cfg.ReadOnly:
			h.fail(w, r, http.StatusForbidden, errReadOnly)
			return
		case h.sessions == nil:
			h.fail(w, r, http.StatusForbidden, errNoToken)
			return
		}
		sess, ok := h.session(r)
		if !ok {
			h.fail(w, r, http.StatusUnauthorized, errSignIn)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := h.sessions.CheckWrite(r, sess); err != nil {
			h.fail(w, r, http.StatusForbidden, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request) {
	if h.sessions == nil {
		http.Redirect(w, r, h.prefix(r)+"/", http.StatusSeeOther) //nolint:gosec // G710: a local path (prefix() checks it)
		return
	}
	h.render(w, r, http.StatusOK, "login", loginData{Next: h.safeNext(r, r.URL.Query().Get("next"))})
}

type loginData struct {
	Next  string
	Error string
}

func (loginData) title() (string, string) { return "Sign in", "" }

// login checks the token and starts a session. It is same-origin only; the
// token itself is what a forged sign-in would lack.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	if h.sessions == nil {
		h.fail(w, r, http.StatusForbidden, errNoToken)
		return
	}
	if err := webkit.CheckOrigin(r); err != nil {
		h.fail(w, r, http.StatusForbidden, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	next := h.safeNext(r, r.PostFormValue("next"))
	if !webkit.TokenEqual(r.PostFormValue("token"), h.cfg.Token) {
		h.cfg.Logger.Warn("dashboard: sign-in refused", "remote", r.RemoteAddr)
		h.render(w, r, http.StatusUnauthorized, "login", loginData{Next: next, Error: "That token is not right."})
		return
	}
	h.sessions.Issue(w, r, h.prefix(r)+"/")
	http.Redirect(w, r, next, http.StatusSeeOther) //nolint:gosec // G710: safeNext keeps it a path under the prefix
}

// logout ends the session in this browser. It needs the CSRF token, so
// another site cannot sign an operator out.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	sess, ok := h.session(r)
	if !ok {
		http.Redirect(w, r, h.prefix(r)+"/login", http.StatusSeeOther) //nolint:gosec // G710: a local path (prefix() checks it)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := h.sessions.CheckWrite(r, sess); err != nil {
		h.fail(w, r, http.StatusForbidden, err)
		return
	}
	h.sessions.Clear(w, r, h.prefix(r)+"/")
	http.Redirect(w, r, h.prefix(r)+"/login", http.StatusSeeOther) //nolint:gosec // G710: a local path (prefix() checks it)
}

// safeNext keeps a redirect target on this dashboard: a path under the
// prefix, never another host.
func (h *Handler) safeNext(r *http.Request, next string) string {
	p := h.prefix(r)
	return webkit.SafeNext(next, p+"/", p+"/")
}
