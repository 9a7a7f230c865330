package operator

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/echomq/echomq/webkit"
)

const (
	sessionCookie = "cmop_session"
	noticeCookie  = "cmop_notice"
	maxForm       = 64 << 10
)

// session is a signed-in operator's session, read from its cookie (its
// Nonce names it in the revocation list; its CSRF is the token its forms
// carry).
type session = webkit.Session

// session returns the request's session, nil when its cookie is missing,
// forged, expired or revoked.
func (h *Handler) session(r *http.Request) *session {
	s, ok := h.sessions.Read(r)
	if !ok {
		return nil
	}
	h.mu.Lock()
	_, revoked := h.revoked[s.Nonce]
	h.mu.Unlock()
	if revoked {
		return nil
	}
	// Signed out in another process, or before a restart: the engine
	// holds the revocation. A failed check refuses (fail closed).
	if revoked, err := h.e.OperatorSessionRevoked(r.Context(), s.Nonce); err != nil || revoked {
		return nil
	}
	return &s
}

// operator wraps a handler for the signed-in operator. Without a session a
// page redirects to the sign-in and a form is refused with 401; a form
// must carry the session's CSRF token (403 otherwise). Either way the
// handler does not run, so nothing changes.
func (h *Handler) operator(next func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := h.session(r)
		if s == nil {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/op/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			h.render(w, r, http.StatusUnauthorized, "signin", &page{Title: "Sign in", Error: "Sign in first: nothing was changed."})
			return
		}
		if r.Method == http.MethodPost {
			if !h.parseForm(w, r, s) {
				return
			}
			if err := h.sessions.CheckWrite(r, *s); err != nil {
				h.log.Warn("operator: form refused", "err", err, "path", r.URL.Path, "remote", r.RemoteAddr)
				h.render(w, r, http.StatusForbidden, "refused", &page{
					Title: "Refused", Session: s,
					Error: "This form did not come from these pages or belongs to another session: nothing was changed. Reload the page and try again.",
				})
				return
			}
		}
		next(w, r, s)
	}
}

// parseForm reads a form body of at most 64 KiB; a bad one is a 400.
func (h *Handler) parseForm(w http.ResponseWriter, r *http.Request, s *session) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		h.render(w, r, http.StatusBadRequest, "refused", &page{Title: "Refused", Session: s, Error: "The form could not be read: nothing was changed."})
		return false
	}
	return true
}

func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if h.session(r) != nil {
		http.Redirect(w, r, next, http.StatusSeeOther) //nolint:gosec // G710: next is safeNext's, a path under /op/
		return
	}
	h.render(w, r, http.StatusOK, "signin", &page{Title: "Sign in", Next: next})
}

// signIn checks the operator token (in constant time, whatever the length
// of what was sent) and sets the session cookie. A sign-in the browser
// marks cross-origin is refused before the token is looked at.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	if err := webkit.CheckOrigin(r); err != nil {
		h.render(w, r, http.StatusForbidden, "refused", &page{Title: "Refused", Error: "This sign-in did not come from these pages: nothing was changed."})
		return
	}
	if !h.parseForm(w, r, nil) {
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	if !webkit.TokenEqual(r.PostForm.Get("token"), h.cfg.OperatorToken) {
		h.log.Warn("operator: sign-in refused", "remote", r.RemoteAddr)
		h.render(w, r, http.StatusUnauthorized, "signin", &page{Title: "Sign in", Next: next, Error: "Wrong operator token."})
		return
	}
	h.sessions.Issue(w, r, "/op/")
	h.log.Info("operator: signed in", "remote", r.RemoteAddr)
	http.Redirect(w, r, next, http.StatusSeeOther) //nolint:gosec // G710: next is safeNext's, a path under /op/
}

// signOut revokes the session (in the engine, so every process and a
// restart honour it, and in this process's cache) and clears its cookie.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request, s *session) {
	if err := h.e.RevokeOperatorSession(r.Context(), s.Nonce, s.Expires); err != nil {
		h.log.Warn("operator: sign-out not recorded in the engine", "err", err)
		http.Error(w, "sign-out failed; try again", http.StatusServiceUnavailable)
		return
	}
	now := h.e.Now()
	h.mu.Lock()
	for n, exp := range h.revoked {
		if !now.Before(exp) {
			delete(h.revoked, n)
		}
	}
	h.revoked[s.Nonce] = s.Expires
	h.mu.Unlock()
	h.sessions.Clear(w, r, "/op/")
	h.accepted(w, r, "/op/signin", "Signed out.")
}

// setNotice keeps the outcome of an accepted form for the next page, in a
// short-lived signed cookie.
func (h *Handler) setNotice(w http.ResponseWriter, r *http.Request, msg string) {
	v := base64.RawURLEncoding.EncodeToString([]byte(msg))
	h.sessions.SetCookie(w, r, noticeCookie, "/op/", v+"."+h.sessions.Sign("notice", v), time.Minute)
}

// takeNotice returns the kept notice, if any, and clears it.
func (h *Handler) takeNotice(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(noticeCookie)
	if err != nil {
		return ""
	}
	h.sessions.SetCookie(w, r, noticeCookie, "/op/", "", -1)
	v, mac, ok := strings.Cut(c.Value, ".")
	if !ok || !h.sessions.Verify(mac, "notice", v) {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// safeNext returns next when it is a page of these pages, else the rooms
// page: the sign-in never redirects elsewhere.
func safeNext(next string) string {
	const fallback = "/op/rooms"
	if u, err := url.Parse(next); err != nil || strings.HasPrefix(u.Path, "/op/signin") {
		return fallback
	}
	return webkit.SafeNext(next, "/op/", fallback)
}
