package webkit

import (
	"bytes"
	_ "embed"
	"net/http"
	"time"
)

// BaseCSS is the stylesheet both UIs start from: colour variables for
// light and dark (the browser's preference), a reset, typography,
// buttons, inputs, focus styles and the screen-reader-only and skip-link
// helpers. A UI's own sheet comes after it and overrides what it must.
//
//go:embed assets/base.css
var BaseCSS []byte

// started stands for BaseCSS's modification time: a new process may
// carry a new sheet, so caches ask again after a restart.
var started = time.Now()

// StyleHandler serves [BaseCSS]. Mount it as base.css next to a UI's own
// sheet, so both stay same-origin for a style-src 'self' policy.
func StyleHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		http.ServeContent(w, r, "base.css", started, bytes.NewReader(BaseCSS))
	})
}
