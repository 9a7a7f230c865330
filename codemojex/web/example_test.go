package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/codemojex/web"
	"github.com/echomq/echomq/embedded"
)

// The web app on the embedded engine, with the sign-in by name: the lobby
// is one server-rendered page, its script and styles embedded too. A
// server mounts the handler at / next to the API at /api/ and runs the
// hub (Hub.Run) for the live feed.
func ExampleNew() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	e, err := codemojex.New(client, &codemojex.Config{})
	if err != nil {
		panic(err)
	}
	h := web.New(e, views.NewHub(e, 100*time.Millisecond), &web.Config{DevSignIn: true})
	defer h.Close()

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	page := rec.Body.String()
	fmt.Println("sign-in form:", strings.Contains(page, `<label for="dev-name">Name</label>`))
	fmt.Println("script:", strings.Contains(page, `<script defer src="/web/static/common.js">`) && strings.Contains(page, `<script defer src="/web/static/lobby.js">`))
	// Output:
	// 200 text/html; charset=utf-8
	// sign-in form: true
	// script: true
}
