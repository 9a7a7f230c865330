package dashboard_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/dashboard"
)

// TestSignIn: with a token every page needs a session; a wrong token is
// refused; the redirect after sign-in stays on the dashboard; the cookie
// is HttpOnly and SameSite=Strict; sign-out needs the CSRF token.
func TestSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	br := b.browser(t)

	p := br.get("/q/" + b.queue + "/lanes")
	require.Equal(t, http.StatusSeeOther, p.status)
	require.Equal(t, "/login?next="+url.QueryEscape("/q/"+b.queue+"/lanes"), p.header.Get("Location"))
	require.Equal(t, http.StatusUnauthorized, br.get("/events").status, "live updates need a session too")
	login := br.get("/login")
	require.Equal(t, http.StatusOK, login.status)
	require.Contains(t, login.body, `<label for="token">`)

	p = br.post("/login", url.Values{"token": {token + "x"}, "next": {"/"}})
	require.Equal(t, http.StatusUnauthorized, p.status)
	require.Contains(t, p.body, "That token is not right.")
	require.Empty(t, p.header.Values("Set-Cookie"))

	for next, want := range map[string]string{
		"/q/" + b.queue + "/lanes": "/q/" + b.queue + "/lanes",
		"https://evil.example/":    "/",
		"//evil.example/":          "/",
		"/\\evil.example":          "/",
		"":                         "/",
	} {
		p = br.post("/login", url.Values{"token": {token}, "next": {next}})
		require.Equal(t, http.StatusSeeOther, p.status)
		require.Equal(t, want, p.header.Get("Location"), "next %q", next)
	}
	cookie := p.header.Get("Set-Cookie")
	require.Contains(t, cookie, "HttpOnly")
	require.Contains(t, cookie, "SameSite=Strict")
	require.Contains(t, cookie, "Path=/")
	require.Equal(t, http.StatusOK, br.get("/q/"+b.queue+"/lanes").status)

	// A cross-site sign-in is refused before the token is looked at.
	p = br.post("/login", url.Values{"token": {token}}, "Sec-Fetch-Site", "cross-site")
	require.Equal(t, http.StatusForbidden, p.status)

	// Sign-out without the CSRF token keeps the session.
	require.Equal(t, http.StatusForbidden, br.post("/logout", url.Values{}).status)
	require.Equal(t, http.StatusOK, br.get("/").status)
	p = br.post("/logout", url.Values{"csrf": {br.csrf("/")}})
	require.Equal(t, http.StatusSeeOther, p.status)
	require.Equal(t, http.StatusSeeOther, br.get("/").status, "signed out")

	// A forged cookie is no session.
	other := b.browser(t)
	u, _ := url.Parse(b.srv.URL)
	other.c.Jar.SetCookies(u, []*http.Cookie{{Name: "emq_dashboard", Value: "abc.9999999999.forged"}})
	require.Equal(t, http.StatusSeeOther, other.get("/").status)
}

// TestOpenWithoutToken: without a token the pages are open, no write
// control is rendered and the page says why.
func TestOpenWithoutToken(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *dashboard.Config) { c.Token = "" })
	b.deadLetters(t, "orders", 1)
	br := b.browser(t)
	p := br.get("/q/" + b.queue + "/streams/orders/dead")
	require.Equal(t, http.StatusOK, p.status)
	require.Contains(t, p.body, "Writes are off: the dashboard has no token.")
	require.NotContains(t, p.body, `name="csrf"`)
	require.NotContains(t, p.body, ">Replay<")
	require.Equal(t, http.StatusSeeOther, br.get("/login").status, "nothing to sign in to")
}

// TestReadOnlyRendersNoControls: signed in on a read-only dashboard, the
// pages show no write control.
func TestReadOnlyRendersNoControls(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *dashboard.Config) { c.ReadOnly = true })
	b.deadLetters(t, "orders", 1)
	b.deadJob(t, "PLR-ada")
	br := b.browser(t)
	br.signIn()
	for _, path := range []string{"/q/" + b.queue + "/streams/orders/dead", "/q/" + b.queue + "/lanes"} {
		p := br.get(path)
		require.Equal(t, http.StatusOK, p.status)
		require.Contains(t, p.body, "Read-only mode")
		require.NotContains(t, p.body, `method="post" action="/q/`)
	}
	require.False(t, b.h.Writable())
}
