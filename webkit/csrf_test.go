package webkit_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit"
)

// TestCheckWrite: a write goes through only same-origin and with its own
// session's CSRF token.
func TestCheckWrite(t *testing.T) {
	t.Parallel()
	s := webkit.NewSessions("secret", "ui", "sid", time.Hour)
	_, mine := issue(t, s)
	_, theirs := issue(t, s)
	require.NotEqual(t, mine.CSRF, theirs.CSRF)
	for _, tc := range []struct {
		name    string
		csrf    *string // nil: no field
		headers map[string]string
		sess    webkit.Session
		want    error
	}{
		{"own token", &mine.CSRF, nil, mine, nil},
		{"same-origin fetch", &mine.CSRF, map[string]string{"Sec-Fetch-Site": "same-origin"}, mine, nil},
		{"typed by the user", &mine.CSRF, map[string]string{"Sec-Fetch-Site": "none"}, mine, nil},
		{"no field", nil, nil, mine, webkit.ErrCSRF},
		{"empty token", new(""), nil, mine, webkit.ErrCSRF},
		{"another session's", &theirs.CSRF, nil, mine, webkit.ErrCSRF},
		{"a prefix", new(mine.CSRF[:10]), nil, mine, webkit.ErrCSRF},
		{"upper case", new(strings.ToUpper(mine.CSRF)), nil, mine, webkit.ErrCSRF},
		{"no session", new(""), nil, webkit.Session{}, webkit.ErrCSRF},
		{"cross-site", &mine.CSRF, map[string]string{"Sec-Fetch-Site": "cross-site"}, mine, webkit.ErrCrossOrigin},
		{"same-site, other origin", &mine.CSRF, map[string]string{"Sec-Fetch-Site": "same-site"}, mine, webkit.ErrCrossOrigin},
		{"foreign Origin", &mine.CSRF, map[string]string{"Origin": "https://evil.example"}, mine, webkit.ErrCrossOrigin},
	} {
		form := url.Values{}
		if tc.csrf != nil {
			form.Set(webkit.CSRFField, *tc.csrf)
		}
		r := httptest.NewRequest(http.MethodPost, "http://ui.example/ui/pause", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		require.ErrorIs(t, s.CheckWrite(r, tc.sess), tc.want, tc.name)
		if tc.want == nil {
			require.NoError(t, s.CheckWrite(r, tc.sess), tc.name)
		}
	}
}

// TestTokenEqual compares whole secrets only.
func TestTokenEqual(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		got, want string
		eq        bool
	}{
		{"op-token", "op-token", true},
		{"", "", true},
		{"", "op-token", false},
		{"op-token ", "op-token", false},
		{"OP-TOKEN", "op-token", false},
		{"op-tokenop-token", "op-token", false},
		{"op-toke", "op-token", false},
	} {
		require.Equal(t, tc.eq, webkit.TokenEqual(tc.got, tc.want), "%q vs %q", tc.got, tc.want)
	}
}

// TestSafeNext keeps a redirect on this host, under the UI's prefix.
func TestSafeNext(t *testing.T) {
	t.Parallel()
	for next, want := range map[string]string{
		"/ops/q/a/lanes":          "/ops/q/a/lanes",
		"/ops/":                   "/ops/",
		"":                        "/ops/",
		"/ops":                    "/ops/",
		"/other/":                 "/ops/",
		"https://evil.example/":   "/ops/",
		"//evil.example/ops/":     "/ops/",
		"/ops/\\evil":             "/ops/",
		"/ops/a\r\nSet-Cookie: x": "/ops/",
	} {
		require.Equal(t, want, webkit.SafeNext(next, "/ops/", "/ops/"), "next %q", next)
	}
	require.Equal(t, "/", webkit.SafeNext("//evil", "/", "/"), "prefix /: no protocol-relative URL")
}
