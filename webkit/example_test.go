package webkit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/echomq/echomq/webkit"
)

// An event stream that sends two updates, then shuts down with the
// server.
func ExampleServe() {
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/events", nil)
	s, err := webkit.Open(rec, r, &webkit.StreamConfig{Retry: 5 * time.Second})
	if err != nil {
		return
	}
	in, stop := make(chan string, 2), make(chan struct{})
	in <- `{"n":1}`
	in <- `{"n":2}`
	_ = webkit.Serve(context.Background(), s, webkit.Loop[string]{
		Stop: stop, In: in,
		On: func(_ context.Context, s *webkit.Stream, v string) error {
			if len(in) == 0 {
				close(stop) // the server shuts down after this one
			}
			return s.Event("stats", "", []byte(v))
		},
	})
	fmt.Print(rec.Body.String())
	// Output:
	// retry: 5000
	// : ready
	//
	// event: stats
	// data: {"n":1}
	//
	// event: stats
	// data: {"n":2}
	//
	// event: shutdown
	// data: {}
}

// A sign-in sets the session cookie; a later write of the same session
// passes the CSRF check with the token its page carried.
func ExampleSessions() {
	s := webkit.NewSessions("the operator's token", "example", "sid", time.Hour)
	rec := httptest.NewRecorder()
	sess := s.Issue(rec, httptest.NewRequest(http.MethodPost, "/login", nil), "/")

	form := func(csrf string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/pause", strings.NewReader(webkit.CSRFField+"="+csrf))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return r
	}
	r := form(sess.CSRF)
	r.AddCookie(rec.Result().Cookies()[0])
	got, ok := s.Read(r)
	fmt.Println(ok, got.Nonce == sess.Nonce, s.CheckWrite(r, got))

	r = form("forged")
	fmt.Println(s.CheckWrite(r, got))
	// Output:
	// true true <nil>
	// the form's CSRF token is missing or wrong: reload the page and try again
}
