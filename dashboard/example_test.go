package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/embedded"
)

// Mount the dashboard under /ops of an existing server: links and the
// session cookie follow the prefix that http.StripPrefix removes.
func Example_mount() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	if _, err := client.Stream("cm", "guess-scored").Append(ctx, echomq.F("player", "ada", "points", "480"), nil); err != nil {
		panic(err)
	}

	h, err := dashboard.New(client, &dashboard.Config{
		Queues: []dashboard.Queue{{Name: "cm", Streams: []string{"guess-scored"}, Lanes: true}},
		Token:  "correct-horse-battery-staple", // from a secret store in real life
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer h.Close() // ends live updates, so the server can shut down

	mux := http.NewServeMux()
	mux.Handle("/ops/", http.StripPrefix("/ops", h))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "the app") })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(srv.URL + "/ops/")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Location"))

	resp, err = noFollow.PostForm(srv.URL+"/ops/login", url.Values{"token": {"correct-horse-battery-staple"}, "next": {"/ops/"}})
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	cookie := resp.Cookies()[0]
	fmt.Println(resp.StatusCode, resp.Header.Get("Location"), cookie.Path, cookie.HttpOnly)
	fmt.Println("writes on:", h.Writable())

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/ops/", nil)
	req.AddCookie(cookie)
	resp, err = noFollow.Do(req)
	if err != nil {
		panic(err)
	}
	var page strings.Builder
	_, _ = io.Copy(&page, resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, strings.Contains(page.String(), `href="/ops/q/cm/streams/guess-scored"`))
	// Output:
	// 303 /ops/login?next=%2Fops%2F
	// 303 /ops/ /ops/ true
	// writes on: true
	// 200 true
}

// Without Queue.Streams the dashboard finds the queue's streams in the
// engine, with their groups, and opens on an overview of them.
func ExampleQueue_discovered() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	for _, name := range []string{"room-opened", "guess-scored"} {
		if _, err := client.Stream("cm", name).Append(ctx, echomq.F("room", "ROM1"), nil); err != nil {
			panic(err)
		}
	}
	h, err := dashboard.New(client, &dashboard.Config{Queues: []dashboard.Queue{{Name: "cm"}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	page := rec.Body.String()
	fmt.Println(rec.Code, strings.Contains(page, `href="/q/cm/streams/room-opened"`), strings.Contains(page, `href="/q/cm/streams/guess-scored"`))
	// Output:
	// 200 true true
}

// A read-only dashboard with no token: open pages, no writes. Put it
// behind your own authentication, or on a private network.
func ExampleNew_readOnly() {
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	h, err := dashboard.New(client, &dashboard.Config{Queues: []dashboard.Queue{{Name: "cm", Streams: []string{"room-opened"}}}})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/q/cm/lanes/pause", nil))
	fmt.Println(h.Writable(), rec.Code)

	_, err = dashboard.New(client, &dashboard.Config{Token: "short"})
	fmt.Println(err)
	// Output:
	// false 403
	// echomq: invalid Token: must be at least 16 bytes (it alone guards the writes)
}
