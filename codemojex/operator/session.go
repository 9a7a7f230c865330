package operator

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	sessionCookie = "cmop_session"
	noticeCookie  = "cmop_notice"
	maxForm       = 64 << 10
)

// session is a signed-in operator's session, read from its cookie.
type session struct {
	nonce string
	exp   time.Time
	csrf  string // the token the session's forms carry
}

// sign returns the hex HMAC of the parts under the session key.
func (h *Handler) sign(parts ...string) string {
	mac := hmac.New(sha256.New, h.key)
	mac.Write([]byte(strings.Join(parts, "|")))
	return hex.EncodeToString(mac.Sum(nil))
}

// session returns the request's session, nil when its cookie is missing,
// forged, expired or revoked.
func (h *Handler) session(r *http.Request) *session {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	parts := strings.Split(c.Value, ".")
	if len(parts) != 3 {
		return nil
	}
	exp, nonce, mac := parts[0], parts[1], parts[2]
	if !hmac.Equal([]byte(mac), []byte(h.sign("session", exp, nonce))) {
		return nil
	}
	sec, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || !h.e.Now().Before(time.Unix(sec, 0)) {
		return nil
	}
	h.mu.Lock()
	_, revoked := h.revoked[nonce]
	h.mu.Unlock()
	if revoked {
		return nil
	}
	// Signed out in another process, or before a restart: the engine
	// holds the revocation. A failed check refuses (fail closed).
	if revoked, err := h.e.OperatorSessionRevoked(r.Context(), nonce); err != nil || revoked {
		return nil
	}
	return &session{nonce: nonce, exp: time.Unix(sec, 0), csrf: h.sign("csrf", nonce)}
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
			if !hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(s.csrf)) {
				h.log.Warn("operator: form refused: bad CSRF token", "path", r.URL.Path, "remote", r.RemoteAddr)
				h.render(w, r, http.StatusForbidden, "refused", &page{Title: "Refused", Session: s,
					Error: "This form did not come from these pages or belongs to another session: nothing was changed. Reload the page and try again."})
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

// signIn checks the operator token and sets the session cookie. Both
// sides are hashed first so the comparison takes the same time whatever
// the length of what was sent.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	if !h.parseForm(w, r, nil) {
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	got := sha256.Sum256([]byte(r.PostForm.Get("token")))
	want := sha256.Sum256([]byte(h.cfg.OperatorToken))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		h.log.Warn("operator: sign-in refused", "remote", r.RemoteAddr)
		h.render(w, r, http.StatusUnauthorized, "signin", &page{Title: "Sign in", Next: next, Error: "Wrong operator token."})
		return
	}
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	nonce := hex.EncodeToString(raw[:])
	exp := h.e.Now().Add(h.cfg.SessionTTL).Truncate(time.Second)
	sec := strconv.FormatInt(exp.Unix(), 10)
	h.setCookie(w, r, sessionCookie, sec+"."+nonce+"."+h.sign("session", sec, nonce), h.cfg.SessionTTL)
	h.log.Info("operator: signed in", "remote", r.RemoteAddr)
	http.Redirect(w, r, next, http.StatusSeeOther) //nolint:gosec // G710: next is safeNext's, a path under /op/
}

// signOut revokes the session (in the engine, so every process and a
// restart honour it, and in this process's cache) and clears its cookie.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request, s *session) {
	if err := h.e.RevokeOperatorSession(r.Context(), s.nonce, s.exp); err != nil {
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
	h.revoked[s.nonce] = s.exp
	h.mu.Unlock()
	h.setCookie(w, r, sessionCookie, "", -1)
	h.accepted(w, r, "/op/signin", "Signed out.")
}

// setCookie sets an operator cookie: HttpOnly, SameSite=Strict, scoped to
// /op/. A negative ttl deletes it.
func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, ttl time.Duration) {
	maxAge := int(ttl / time.Second)
	if ttl < 0 {
		maxAge = -1
	}
	// Secure behind TLS or when configured; HttpOnly and SameSite always.
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/op/", MaxAge: maxAge, HttpOnly: true, //nolint:gosec // G124: see above
		SameSite: http.SameSiteStrictMode, Secure: h.cfg.SecureCookies || r.TLS != nil})
}

// setNotice keeps the outcome of an accepted form for the next page, in a
// short-lived signed cookie.
func (h *Handler) setNotice(w http.ResponseWriter, r *http.Request, msg string) {
	v := base64.RawURLEncoding.EncodeToString([]byte(msg))
	h.setCookie(w, r, noticeCookie, v+"."+h.sign("notice", v), time.Minute)
}

// takeNotice returns the kept notice, if any, and clears it.
func (h *Handler) takeNotice(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(noticeCookie)
	if err != nil {
		return ""
	}
	h.setCookie(w, r, noticeCookie, "", -1)
	v, mac, ok := strings.Cut(c.Value, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(h.sign("notice", v))) {
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
	u, err := url.Parse(next)
	if err != nil || next == "" || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/op/") ||
		strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") || strings.HasPrefix(u.Path, "/op/signin") {
		return "/op/rooms"
	}
	return next
}
