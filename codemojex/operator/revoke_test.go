package operator_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/operator"
)

// TestSignOutHoldsAcrossProcesses: a session signed out on one server is
// refused by another server of the same engine (another process, or this
// one after a restart): the revocation lives in the engine.
func TestSignOutHoldsAcrossProcesses(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := h.signedIn()
	u, _ := url.Parse(h.url + "/op/")
	cookies := b.c.Jar.Cookies(u)
	require.NotEmpty(t, cookies)

	other, err := operator.New(h.e, &operator.Config{OperatorToken: opToken, Logger: quiet})
	require.NoError(t, err)
	srv := httptest.NewServer(other)
	t.Cleanup(srv.Close)
	get := func() int {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/op/rooms", nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, get(), "the session works on the other server")
	res := b.submit("/op/signout", url.Values{})
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, http.StatusSeeOther, get(), "signed out on one server, refused on the other")
}
