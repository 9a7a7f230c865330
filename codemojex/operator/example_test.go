package operator_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/operator"
	"github.com/echomq/echomq/embedded"
)

// The pages ask for the operator token first; signing in sets a session
// cookie that never holds the token. New refuses an empty token.
func Example() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, Notice: io.Discard})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	eng, err := codemojex.New(client, &codemojex.Config{})
	if err != nil {
		log.Fatal(err)
	}
	ops, err := operator.New(eng, &operator.Config{OperatorToken: "s3cret", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}

	rec := httptest.NewRecorder()
	ops.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/op/rooms", nil))
	fmt.Println(rec.Code, rec.Header().Get("Location"))

	req := httptest.NewRequest(http.MethodPost, "/op/signin", strings.NewReader(url.Values{"token": {"s3cret"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec = httptest.NewRecorder()
	ops.ServeHTTP(rec, req)
	c := rec.Result().Cookies()[0]
	fmt.Println(rec.Code, rec.Header().Get("Location"), c.Name, c.HttpOnly, c.SameSite == http.SameSiteStrictMode, strings.Contains(c.Value, "s3cret"))

	_, err = operator.New(eng, &operator.Config{})
	fmt.Println(err)
	// Output:
	// 303 /op/signin?next=%2Fop%2Frooms
	// 303 /op/rooms cmop_session true true false
	// echomq: invalid operator token: must not be empty
}
