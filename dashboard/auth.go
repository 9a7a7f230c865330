package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// cookieName is the session cookie's name.
const cookieName = "emq_dashboard"

// csrfField is the form field every write carries.
const csrfField = "csrf"

// sessionKey derives the key sessions are signed with from the token: the
// same token gives the same key on every replica and after a restart, and
// a new token ends every session.
func sessionKey(token string) []byte {
	k := sha256.Sum256([]byte("echomq dashboard session key\x00" + token))
	return k[:]
}

func (h *Handler) mac(parts ...string) string {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// newSession returns a cookie value: nonce.expiry.mac.
func (h *Handler) newSession(now time.Time) string {
	var b [18]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	nonce := base64.RawURLEncoding.EncodeToString(b[:])
	exp := strconv.FormatInt(now.Add(h.cfg.SessionTTL).Unix(), 10)
	return nonce + "." + exp + "." + h.mac("session", nonce, exp)
}

// session returns the nonce of the request's valid session, or "".
func (h *Handler) session(r *http.Request) string {
	if h.key == nil {
		return ""
	}
	c, err := r.Cookie(cookieName)
	if err != nil {
		return ""
	}
	nonce, rest, ok1 := strings.Cut(c.Value, ".")
	exp, sig, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || !hmac.Equal([]byte(sig), []byte(h.mac("session", nonce, exp))) {
		return ""
	}
	if n, err := strconv.ParseInt(exp, 10, 64); err != nil || time.Now().Unix() >= n {
		return ""
	}
	return nonce
}

// csrfToken is the synchronizer token of a session: only a page served to
// that session holds it.
func (h *Handler) csrfToken(nonce string) string {
	if nonce == "" {
		return ""
	}
	return h.mac("csrf", nonce)
}

// reader guards a page: with a token, a signed-in session is needed (a
// browser is sent to the sign-in page, anything else gets 401).
func (h *Handler) reader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.key != nil && h.session(r) == "" {
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
	errReadOnly  = errors.New("the dashboard is read-only: writes are off")
	errNoToken   = errors.New("writes are off: the dashboard has no token (set one to turn them on)")
	errSignIn    = errors.New("sign in with the dashboard's token first")
	errCSRFToken = errors.New("the form's CSRF token is missing or wrong: reload the page and try again")
)

// writer guards a write: it must be enabled, signed in, same-origin and
// carry the session's CSRF token. Nothing is written otherwise.
func (h *Handler) writer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case h.cfg.ReadOnly:
			h.fail(w, r, http.StatusForbidden, errReadOnly)
			return
		case h.key == nil:
			h.fail(w, r, http.StatusForbidden, errNoToken)
			return
		}
		nonce := h.session(r)
		if nonce == "" {
			h.fail(w, r, http.StatusUnauthorized, errSignIn)
			return
		}
		if err := h.origin.Check(r); err != nil {
			h.fail(w, r, http.StatusForbidden, err)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		got := r.PostFormValue(csrfField)
		if subtle.ConstantTimeCompare([]byte(got), []byte(h.csrfToken(nonce))) != 1 {
			h.fail(w, r, http.StatusForbidden, errCSRFToken)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request) {
	if h.key == nil {
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
	if h.key == nil {
		h.fail(w, r, http.StatusForbidden, errNoToken)
		return
	}
	if err := h.origin.Check(r); err != nil {
		h.fail(w, r, http.StatusForbidden, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	next := h.safeNext(r, r.PostFormValue("next"))
	if subtle.ConstantTimeCompare([]byte(r.PostFormValue("token")), []byte(h.cfg.Token)) != 1 {
		h.cfg.Logger.Warn("dashboard: sign-in refused", "remote", r.RemoteAddr)
		h.render(w, r, http.StatusUnauthorized, "login", loginData{Next: next, Error: "That token is not right."})
		return
	}
	//nolint:gosec // G124: Secure whenever the browser came over TLS; a loopback dashboard on plain HTTP must still sign in
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: h.newSession(time.Now()), Path: h.prefix(r) + "/",
		MaxAge: int(h.cfg.SessionTTL / time.Second), HttpOnly: true, Secure: overTLS(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, next, http.StatusSeeOther) //nolint:gosec // G710: safeNext keeps it a path under the prefix
}

// logout ends the session in this browser. It needs the CSRF token, so
// another site cannot sign an operator out.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	nonce := h.session(r)
	if nonce == "" {
		http.Redirect(w, r, h.prefix(r)+"/login", http.StatusSeeOther) //nolint:gosec // G710: a local path (prefix() checks it)
		return
	}
	if err := h.origin.Check(r); err != nil {
		h.fail(w, r, http.StatusForbidden, err)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostFormValue(csrfField)), []byte(h.csrfToken(nonce))) != 1 {
		h.fail(w, r, http.StatusForbidden, errCSRFToken)
		return
	}
	//nolint:gosec // G124: as at sign-in
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: h.prefix(r) + "/", MaxAge: -1,
		HttpOnly: true, Secure: overTLS(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, h.prefix(r)+"/login", http.StatusSeeOther) //nolint:gosec // G710: a local path (prefix() checks it)
}

// overTLS reports whether the browser reached the dashboard over TLS,
// directly or through a proxy that says so. A forged header only makes the
// cookie stay off plain HTTP, which gains an attacker nothing.
func overTLS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// safeNext keeps a redirect target on this dashboard: a path under the
// prefix, never another host.
func (h *Handler) safeNext(r *http.Request, next string) string {
	p := h.prefix(r)
	if !strings.HasPrefix(next, p+"/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return p + "/"
	}
	return next
}
