package webkit

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Sessions issues and reads signed session cookies. A cookie holds an
// expiry, a random nonce and their HMAC under a key derived from the
// secret, never the secret itself: every process holding the same secret
// accepts it until it expires (after a restart too, and across replicas),
// and a new secret ends every session. A Sessions is safe for concurrent
// use; its fields must not change once it is in use.
type Sessions struct {
	// Cookie is the session cookie's name.
	Cookie string
	// TTL is how long a session lasts.
	TTL time.Duration
	// Now is the clock expiries are set and checked on. Defaults to
	// time.Now.
	Now func() time.Time
	// Secure marks the cookies Secure on every response (a server behind
	// a proxy that terminates TLS); they are Secure anyway on a request
	// that came over TLS ([OverTLS]).
	Secure bool

	key []byte
}

// Session is a valid session read from its cookie.
type Session struct {
	// Nonce identifies the session (for a revocation list).
	Nonce string
	// Expires is when the cookie stops being accepted.
	Expires time.Time
	// CSRF is the token the session's forms carry: an HMAC of the nonce,
	// so only a page served to this session holds it.
	CSRF string
}

// NewSessions returns the sessions of a secret (a sign-in token) for one
// purpose: the purpose keeps the keys of two UIs sharing a secret apart.
func NewSessions(secret, purpose, cookie string, ttl time.Duration) *Sessions {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("echomq webkit session key\x00" + purpose))
	return &Sessions{Cookie: cookie, TTL: ttl, key: m.Sum(nil)}
}

func (s *Sessions) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Sign returns the hex HMAC of the parts under the session key, for a
// value the server hands out and must recognise later (a notice cookie).
func (s *Sessions) Sign(parts ...string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports, in constant time, whether mac is Sign(parts...).
func (s *Sessions) Verify(mac string, parts ...string) bool {
	return hmac.Equal([]byte(mac), []byte(s.Sign(parts...)))
}

// Issue starts a session: it sets its cookie, scoped to path, on w.
func (s *Sessions) Issue(w http.ResponseWriter, r *http.Request, path string) Session {
	var raw [16]byte
	_, _ = rand.Read(raw[:]) // never fails (crypto/rand)
	nonce := hex.EncodeToString(raw[:])
	exp := s.now().Add(s.TTL).Truncate(time.Second)
	sec := strconv.FormatInt(exp.Unix(), 10)
	s.SetCookie(w, r, s.Cookie, path, sec+"."+nonce+"."+s.Sign("session", sec, nonce), s.TTL)
	return Session{Nonce: nonce, Expires: exp, CSRF: s.Sign("csrf", nonce)}
}

// Read returns the request's session; ok is false when its cookie is
// missing, malformed, forged or expired.
func (s *Sessions) Read(r *http.Request) (_ Session, ok bool) {
	c, err := r.Cookie(s.Cookie)
	if err != nil {
		return Session{}, false
	}
	sec, rest, ok1 := strings.Cut(c.Value, ".")
	nonce, mac, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || !s.Verify(mac, "session", sec, nonce) {
		return Session{}, false
	}
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || !s.now().Before(time.Unix(n, 0)) {
		return Session{}, false
	}
	return Session{Nonce: nonce, Expires: time.Unix(n, 0), CSRF: s.Sign("csrf", nonce)}, true
}

// Clear ends the session in this browser: it deletes its cookie.
func (s *Sessions) Clear(w http.ResponseWriter, r *http.Request, path string) {
	s.SetCookie(w, r, s.Cookie, path, "", -1)
}

// SetCookie sets a cookie the way every cookie of these UIs is set:
// HttpOnly, SameSite=Strict, scoped to path, Secure over TLS or when
// configured. A negative ttl deletes it.
func (s *Sessions) SetCookie(w http.ResponseWriter, r *http.Request, name, path, value string, ttl time.Duration) {
	maxAge := int(ttl / time.Second)
	if ttl < 0 {
		maxAge = -1
	}
	//nolint:gosec // G124: Secure whenever the browser came over TLS or it is configured; a loopback UI on plain HTTP must still sign in
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: path, MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.Secure || OverTLS(r),
	})
}

// OverTLS reports whether the browser came over TLS, directly or through a
// proxy that says so. A forged header only keeps a cookie off plain HTTP,
// which gains an attacker nothing.
func OverTLS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}
