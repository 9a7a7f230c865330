package web_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/web"
)

func TestCloseEndsStreams(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	resp, err := http.Get(h.url + "/web/events")
	require.NoError(t, err)
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, ": ready\n", line)
	h.web.Close()
	h.web.Close() // twice is fine
	_, err = io.ReadAll(resp.Body)
	require.NoError(t, err, "the stream ends cleanly")
}

func TestTelegramSignInOff(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	wh := web.New(h.e, h.hub, &web.Config{Logger: quiet})
	rec := httptest.NewRecorder()
	wh.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/web/auth/telegram", strings.NewReader(`{"init_data":"a=b"}`)))
	require.Equal(t, http.StatusNotFound, rec.Code)
	rec = httptest.NewRecorder()
	wh.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotContains(t, rec.Body.String(), `id="dev-form"`, "no dev sign-in form when it is off")
}
