package operator_test

import (
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
)

// Without the right token nothing is served and nothing changes: pages
// redirect to the sign-in, forms are refused with 401, a wrong token sets
// no cookie.
func TestSignInRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.player("alice")
	b := h.browser()

	res := b.get("/op/rooms")
	require.Equal(t, http.StatusSeeOther, res.status)
	require.Equal(t, "/op/signin?next=%2Fop%2Frooms", res.location)
	res = b.get("/op/players?player=" + p.ID)
	require.Equal(t, http.StatusSeeOther, res.status)
	require.Equal(t, "/op/signin?next="+url.QueryEscape("/op/players?player="+p.ID), res.location)

	for _, token := range []string{"", "op", "op-secret-token ", "OP-SECRET-TOKEN", opToken + opToken} {
		res := b.post("/op/signin", url.Values{"token": {token}})
		require.Equal(t, http.StatusUnauthorized, res.status, "%q", token)
		require.Contains(t, res.body, "Wrong operator token.")
		require.Empty(t, res.cookies, "%q", token)
	}
	res = b.post("/op/rooms", url.Values{"name": {"Vault"}, "csrf": {"00"}})
	require.Equal(t, http.StatusUnauthorized, res.status)
	require.Contains(t, res.body, "Sign in first: nothing was changed.")
	res = b.post("/op/grant", url.Values{"player": {p.ID}, "currency": {"keys"}, "amount": {"5"}})
	require.Equal(t, http.StatusUnauthorized, res.status)
	res = b.post("/op/signout", nil)
	require.Equal(t, http.StatusUnauthorized, res.status)

	// A forged or tampered cookie is no session.
	u, _ := url.Parse(h.url + "/op/")
	for _, v := range []string{"x", "1.2.3", "9999999999.00112233445566778899aabbccddeeff.00"} {
		b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "cmop_session", Value: v, Path: "/op/"}})
		require.Equal(t, http.StatusSeeOther, b.get("/op/rooms").status, v)
	}
	require.Empty(t, h.rooms())
	require.Equal(t, codemojex.Wallet{}, h.wallet(p.ID))
	require.Empty(t, h.events(codemojex.StreamRoomOpened))
}

// The right token sets an HttpOnly, SameSite=Strict cookie scoped to
// /op/ that does not hold the token, and goes to the page asked for.
func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := h.browser()

	res := b.post("/op/signin", url.Values{"token": {opToken}, "next": {"/op/players"}})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, "/op/players", res.location)
	require.Len(t, res.cookies, 1)
	c := res.cookies[0]
	require.Equal(t, "cmop_session", c.Name)
	require.True(t, c.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	require.Equal(t, "/op/", c.Path)
	require.Equal(t, int((12 * time.Hour).Seconds()), c.MaxAge)
	require.NotContains(t, c.Value, opToken)
	require.False(t, c.Secure, "plain http")

	res = b.get("/op/rooms")
	require.Equal(t, http.StatusOK, res.status)
	require.Contains(t, res.body, "Create a room")
	require.Equal(t, "no-store", res.header.Get("Cache-Control"))
	require.Contains(t, res.header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	require.Equal(t, "DENY", res.header.Get("X-Frame-Options"))
	// Signed in, the sign-in page moves on.
	require.Equal(t, http.StatusSeeOther, b.get("/op/signin").status)

	// Signing out revokes the session: the same cookie is refused after.
	res = b.submit("/op/signout", url.Values{})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, "/op/signin", res.location)
	res = b.get("/op/signin")
	require.Equal(t, http.StatusOK, res.status)
	require.Contains(t, res.body, "Signed out.")
	require.Equal(t, http.StatusSeeOther, b.get("/op/rooms").status)
	replay := h.browser()
	u, _ := url.Parse(h.url + "/op/")
	replay.c.Jar.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/op/"}})
	require.Equal(t, http.StatusSeeOther, replay.get("/op/rooms").status)
}

// A session ends when its time is up.
func TestSessionExpires(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := h.signedIn()
	require.Equal(t, http.StatusOK, b.get("/op/rooms").status)
	h.clock.add(11 * time.Hour)
	require.Equal(t, http.StatusOK, b.get("/op/rooms").status)
	h.clock.add(time.Hour)
	require.Equal(t, http.StatusSeeOther, b.get("/op/rooms").status)
}

// The sign-in goes on only to the operator pages.
func TestSignInNext(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, tc := range []struct{ next, want string }{
		{"", "/op/rooms"},
		{"/op/players?player=PLR1", "/op/players?player=PLR1"},
		{"//evil.example/op/rooms", "/op/rooms"},
		{"https://evil.example/op/rooms", "/op/rooms"},
		{"/api/op/sweep", "/op/rooms"},
		{"/op/signin", "/op/rooms"},
		{"/op/\\evil", "/op/rooms"},
		{"javascript:alert(1)", "/op/rooms"},
	} {
		res := h.browser().post("/op/signin", url.Values{"token": {opToken}, "next": {tc.next}})
		require.Equal(t, http.StatusSeeOther, res.status)
		require.Equal(t, tc.want, res.location, tc.next)
	}
}

// Every form needs the CSRF token of its own session: missing, wrong or
// another session's is a 403 and nothing changes.
func TestCSRF(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.player("alice")
	room := h.room(classicRoom)
	joined, err := h.e.Join(t.Context(), p.ID, room.ID)
	require.NoError(t, err)
	b := h.signedIn()
	other := h.signedIn().csrf()
	require.NotEqual(t, other, b.csrf())

	forms := []struct {
		path string
		form url.Values
	}{
		{"/op/rooms", url.Values{"name": {"Vault"}, "set": {"food"}, "mode": {"classic"}, "fee": {"1"}}},
		{"/op/grant", url.Values{"player": {p.ID}, "currency": {"keys"}, "amount": {"5"}}},
		{"/op/games/" + joined.Game + "/close", url.Values{"confirm": {"yes"}}},
		{"/op/signout", url.Values{}},
	}
	for _, f := range forms {
		for _, csrf := range []string{"", "x", other, strings.Repeat("0", 64)} {
			form := url.Values{}
			maps.Copy(form, f.form)
			if csrf != "" {
				form.Set("csrf", csrf)
			}
			res := b.post(f.path, form)
			require.Equal(t, http.StatusForbidden, res.status, "%s %q", f.path, csrf)
			require.Contains(t, res.body, "nothing was changed")
		}
	}
	// A token sent in the query string is not the form's.
	res := b.post("/op/grant?csrf="+b.csrf(), forms[1].form)
	require.Equal(t, http.StatusForbidden, res.status)

	require.Len(t, h.rooms(), 1)
	require.Equal(t, codemojex.Wallet{}, h.wallet(p.ID))
	g, err := h.e.Game(t.Context(), joined.Game)
	require.NoError(t, err)
	require.Equal(t, codemojex.StatusOpen, g.Status)
	require.Len(t, h.events(codemojex.StreamRoomOpened), 1)
	require.Empty(t, h.events(codemojex.StreamLedger))
	require.Equal(t, http.StatusOK, b.get("/op/rooms").status, "still signed in")
}

// The style sheet is served without a session; unknown pages are 404.
func TestStaticAndNotFound(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := h.browser()
	for _, sheet := range []string{"/op/static/base.css", "/op/static/op.css"} {
		res := b.get(sheet)
		require.Equal(t, http.StatusOK, res.status, sheet)
		require.Contains(t, res.header.Get("Content-Type"), "text/css", sheet)
	}
	res := b.get("/op/signin")
	require.Contains(t, res.body, `href="/op/static/base.css"`)
	require.Equal(t, http.StatusNotFound, b.get("/op/nope").status)
	res = b.get("/op/")
	require.Equal(t, http.StatusSeeOther, res.status)
	require.Equal(t, "/op/rooms", res.location)
}

// A sign-in or a form the browser marks cross-site is refused (403) and
// changes nothing, even with the right token and a valid session.
func TestCrossSiteRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := h.browser()
	cross := func(path string, form url.Values) result {
		req, err := http.NewRequest(http.MethodPost, h.url+path, strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		return b.do(req)
	}
	res := cross("/op/signin", url.Values{"token": {opToken}})
	require.Equal(t, http.StatusForbidden, res.status)
	require.Empty(t, res.cookies)

	b = h.signedIn()
	res = cross("/op/rooms", url.Values{"name": {"Vault"}, "set": {"animals"}, "csrf": {b.csrf()}})
	require.Equal(t, http.StatusForbidden, res.status)
	require.Empty(t, h.rooms())
}
