package app

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of the HTTP hardening ([ServeConfig]).
var (
	// DefaultSignInRate limits sign-ins (POST /api/auth/dev, POST
	// /web/auth/telegram) per client address.
	DefaultSignInRate = Rate{PerSecond: 2, Burst: 10}
	// DefaultOperatorSignInRate limits POST /op/signin per client address.
	DefaultOperatorSignInRate = Rate{PerSecond: 0.5, Burst: 5}
	// DefaultGuessRate limits guesses per session (the bearer token a
	// player signed in with).
	DefaultGuessRate = Rate{PerSecond: 10, Burst: 20}
)

// webCSP lets the web app load only its own scripts, styles and API, and
// lets Telegram embed it as a Mini App (web.telegram.org frames it); no
// other site may frame it.
const webCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self' https://web.telegram.org https://*.telegram.org"

// harden wraps the server's handler: security headers on every response
// (a handler may set stricter ones, as the operator pages do) and the rate
// limits, answered with 429 and Retry-After.
type harden struct {
	next             http.Handler
	signIn, opSignIn *limiter
	guess            *limiter
	secure           bool
}

func newHarden(next http.Handler, cfg ServeConfig) *harden {
	now := time.Now
	return &harden{
		next: next, secure: cfg.SecureCookies,
		signIn:   newLimiter(cfg.SignInRate, now),
		opSignIn: newLimiter(cfg.OperatorSignInRate, now),
		guess:    newLimiter(cfg.GuessRate, now),
	}
}

func (h *harden) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", webCSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	if h.secure {
		hd.Set("Strict-Transport-Security", "max-age=31536000")
	}
	if lim, key := h.limit(r); lim != nil {
		if ok, wait := lim.allow(key); !ok {
			hd.Set("Retry-After", strconv.Itoa(max(1, int((wait+time.Second-1)/time.Second))))
			http.Error(w, "too many requests; retry later", http.StatusTooManyRequests)
			return
		}
	}
	h.next.ServeHTTP(w, r)
}

// limit picks the limiter of r and its key, nil when r is not limited.
func (h *harden) limit(r *http.Request) (*limiter, string) {
	if r.Method != http.MethodPost {
		return nil, ""
	}
	switch p := r.URL.Path; {
	case p == "/api/auth/dev", p == "/web/auth/telegram":
		return h.signIn, clientIP(r)
	case p == "/op/signin":
		return h.opSignIn, clientIP(r)
	case strings.HasPrefix(p, "/api/games/") && strings.HasSuffix(p, "/guess"):
		// Per session: the token is hashed so the table holds no secret.
		sum := sha256.Sum256([]byte(r.Header.Get("Authorization")))
		return h.guess, hex.EncodeToString(sum[:16])
	}
	return nil, ""
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
