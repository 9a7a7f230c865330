package webkit_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit"
)

// TestStyleHandler serves the base sheet as CSS, with both colour schemes
// and the focus style every UI relies on.
func TestStyleHandler(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"GET", "HEAD"} {
		rec := httptest.NewRecorder()
		webkit.StyleHandler().ServeHTTP(rec, httptest.NewRequest(method, "/static/base.css", nil))
		res := rec.Result()
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, "text/css; charset=utf-8", res.Header.Get("Content-Type"))
		require.NotEmpty(t, res.Header.Get("Last-Modified"))
		b, _ := io.ReadAll(res.Body)
		if method == "HEAD" {
			require.Empty(t, b)
			continue
		}
		css := string(b)
		for _, want := range []string{"color-scheme: light dark", "prefers-color-scheme: dark", ":focus-visible", "box-sizing: border-box", "button.primary", ".vh"} {
			require.Contains(t, css, want)
		}
		require.Equal(t, strings.Count(css, "{"), strings.Count(css, "}"), "balanced braces")
	}
}
