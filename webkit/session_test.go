package webkit_test

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit"
)

// clock is a settable clock for session expiry.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// issue signs a session in on s and returns its cookie.
func issue(t *testing.T, s *webkit.Sessions) (*http.Cookie, webkit.Session) {
	t.Helper()
	rec := httptest.NewRecorder()
	sess := s.Issue(rec, httptest.NewRequest(http.MethodPost, "/login", nil), "/ui/")
	cs := rec.Result().Cookies()
	require.Len(t, cs, 1)
	return cs[0], sess
}

func read(s *webkit.Sessions, name, value string) (webkit.Session, bool) {
	r := httptest.NewRequest(http.MethodGet, "/ui/", nil)
	r.AddCookie(&http.Cookie{Name: name, Value: value})
	return s.Read(r)
}

// TestSessionCookie: the cookie is HttpOnly, SameSite=Strict, scoped to
// its path, lasts the TTL, holds no secret, and is Secure over TLS only.
func TestSessionCookie(t *testing.T) {
	t.Parallel()
	s := webkit.NewSessions("the-secret", "test", "emq_test", time.Hour)
	c, sess := issue(t, s)
	require.Equal(t, "emq_test", c.Name)
	require.True(t, c.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	require.Equal(t, "/ui/", c.Path)
	require.Equal(t, 3600, c.MaxAge)
	require.False(t, c.Secure, "plain HTTP")
	require.NotContains(t, c.Value, "the-secret")
	require.NotEmpty(t, sess.CSRF)
	require.NotContains(t, c.Value, sess.CSRF, "the CSRF token is not in the cookie")

	for _, tc := range []struct {
		name   string
		req    func(*http.Request)
		secure bool
	}{
		{"plain", func(*http.Request) {}, false},
		{"proxy says https", func(r *http.Request) { r.Header.Set("X-Forwarded-Proto", "HTTPS") }, true},
		{"tls", func(r *http.Request) { r.TLS = &tls.ConnectionState{} }, true},
	} {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		tc.req(r)
		s.Clear(rec, r, "/ui/")
		c := rec.Result().Cookies()[0]
		require.Equal(t, tc.secure, c.Secure, tc.name)
		require.Equal(t, -1, c.MaxAge, "%s: a cleared cookie is deleted", tc.name)
	}
}

// TestSessionRead: a cookie is a session only as issued, under the same
// secret and purpose, before its expiry.
func TestSessionRead(t *testing.T) {
	t.Parallel()
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	s := webkit.NewSessions("secret", "ui", "sid", time.Hour)
	s.Now = clk.Now
	c, sess := issue(t, s)
	sec, rest, _ := strings.Cut(c.Value, ".")
	nonce, mac, _ := strings.Cut(rest, ".")

	other := webkit.NewSessions("secret", "other ui", "sid", time.Hour)
	rotated := webkit.NewSessions("new secret", "ui", "sid", time.Hour)
	for _, tc := range []struct {
		name  string
		s     *webkit.Sessions
		value string
		ok    bool
	}{
		{"as issued", s, c.Value, true},
		{"empty", s, "", false},
		{"no dots", s, "abc", false},
		{"two parts", s, sec + "." + nonce, false},
		{"forged mac", s, sec + "." + nonce + "." + strings.Repeat("0", len(mac)), false},
		{"later expiry", s, "9999999999." + nonce + "." + mac, false},
		{"other nonce", s, sec + ".00112233445566778899aabbccddeeff." + mac, false},
		{"not a number", s, "soon." + nonce + "." + s.Sign("session", "soon", nonce), false},
		{"other purpose", other, c.Value, false},
		{"secret changed", rotated, c.Value, false},
	} {
		got, ok := read(tc.s, "sid", tc.value)
		require.Equal(t, tc.ok, ok, tc.name)
		if ok {
			require.Equal(t, sess, got, tc.name)
		}
	}
	_, ok := read(s, "other", c.Value)
	require.False(t, ok, "another cookie's name")
}

// TestSessionExpiry: a session is accepted until its expiry, on the
// configured clock, and not from then on.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		after time.Duration
		ok    bool
	}{
		{0, true},
		{59 * time.Minute, true},
		{time.Hour - time.Second, true},
		{time.Hour, false},
		{25 * time.Hour, false},
		{-time.Hour, true}, // a clock stepped back: still inside the TTL
	} {
		clk := &clock{now: time.Unix(1_800_000_000, 0)}
		s := webkit.NewSessions("secret", "ui", "sid", time.Hour)
		s.Now = clk.Now
		c, sess := issue(t, s)
		require.Equal(t, clk.now.Add(time.Hour), sess.Expires)
		clk.now = clk.now.Add(tc.after)
		_, ok := read(s, "sid", c.Value)
		require.Equal(t, tc.ok, ok, "after %v", tc.after)
	}
}

// TestSignVerify: a signed value verifies under the same parts only.
func TestSignVerify(t *testing.T) {
	t.Parallel()
	s := webkit.NewSessions("secret", "ui", "sid", time.Hour)
	mac := s.Sign("notice", "hello")
	require.True(t, s.Verify(mac, "notice", "hello"))
	require.False(t, s.Verify(mac, "notice", "hell", "o"))
	require.False(t, s.Verify(mac, "notice", "hello!"))
	require.False(t, s.Verify("", "notice", "hello"))
	require.False(t, webkit.NewSessions("secret2", "ui", "sid", time.Hour).Verify(mac, "notice", "hello"))
}
