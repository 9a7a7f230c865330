package operator_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/operator"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/tables"
)

var quiet = slog.New(slog.DiscardHandler)

const opToken = "op-secret-token"

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// harness is an engine on a queue of its own and the operator pages on an
// httptest server.
type harness struct {
	t      *testing.T
	e      *codemojex.Engine
	client *echomq.Client
	clock  *clock
	url    string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	clk := &clock{t: time.Now()}
	e, err := codemojex.New(client, &codemojex.Config{Queue: echomqtest.Queue(t), Clock: clk.now, Logger: quiet})
	require.NoError(t, err)
	ops, err := operator.New(e, &operator.Config{OperatorToken: opToken, Logger: quiet})
	require.NoError(t, err)
	srv := httptest.NewServer(ops)
	t.Cleanup(srv.Close)
	return &harness{t: t, e: e, client: client, clock: clk, url: srv.URL}
}

// browser is one operator's browser: a cookie jar, no redirects followed.
type browser struct {
	h *harness
	c *http.Client
}

func (h *harness) browser() *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(h.t, err)
	return &browser{h: h, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// signedIn returns a browser signed in with the operator token.
func (h *harness) signedIn() *browser {
	b := h.browser()
	res := b.post("/op/signin", url.Values{"token": {opToken}})
	require.Equal(h.t, http.StatusSeeOther, res.status, res.body)
	return b
}

type result struct {
	status   int
	body     string
	location string
	header   http.Header
	cookies  []*http.Cookie
}

func (b *browser) do(req *http.Request) result {
	b.h.t.Helper()
	resp, err := b.c.Do(req)
	require.NoError(b.h.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(b.h.t, err)
	return result{status: resp.StatusCode, body: string(body), location: resp.Header.Get("Location"), header: resp.Header, cookies: resp.Cookies()}
}

func (b *browser) get(path string) result {
	b.h.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.h.url+path, nil)
	require.NoError(b.h.t, err)
	return b.do(req)
}

func (b *browser) post(path string, form url.Values) result {
	b.h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.h.url+path, strings.NewReader(form.Encode()))
	require.NoError(b.h.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// csrf returns the CSRF token of the browser's session, from a page.
func (b *browser) csrf() string {
	b.h.t.Helper()
	res := b.get("/op/rooms")
	require.Equal(b.h.t, http.StatusOK, res.status, res.body)
	m := csrfRE.FindStringSubmatch(res.body)
	require.NotNil(b.h.t, m, res.body)
	return m[1]
}

// submit posts a form with the session's CSRF token.
func (b *browser) submit(path string, form url.Values) result {
	b.h.t.Helper()
	form.Set("csrf", b.csrf())
	return b.post(path, form)
}

func (h *harness) rooms() []codemojex.Room {
	h.t.Helper()
	rooms, err := h.e.Rooms(context.Background())
	require.NoError(h.t, err)
	return rooms
}

func (h *harness) events(stream string) []echomq.Event {
	h.t.Helper()
	evs, err := h.e.Stream(stream).Read(context.Background(), echomq.All, nil)
	require.NoError(h.t, err)
	return evs
}

func (h *harness) wallet(player string) codemojex.Wallet {
	h.t.Helper()
	w, err := h.e.Wallet(context.Background(), player)
	require.NoError(h.t, err)
	return w
}

func (h *harness) player(name string) codemojex.Player {
	h.t.Helper()
	p, _, err := h.e.SignIn(context.Background(), codemojex.Identity{Provider: "dev", Subject: name})
	require.NoError(h.t, err)
	return p
}

func (h *harness) room(spec codemojex.RoomSpec) codemojex.Room {
	h.t.Helper()
	r, err := h.e.CreateRoom(context.Background(), spec)
	require.NoError(h.t, err)
	return r
}

// secret reads a game's secret from its record: a test's privilege.
func (h *harness) secret(game string) []string {
	h.t.Helper()
	b, ok, err := tables.New(h.client, h.e.Queue(), "games").Get(context.Background(), game)
	require.NoError(h.t, err)
	require.True(h.t, ok)
	var g struct{ Secret string }
	require.NoError(h.t, json.Unmarshal(b, &g))
	return strings.Split(g.Secret, ",")
}

var classicRoom = codemojex.RoomSpec{Name: "Animal Farm", Set: "animals", Mode: rules.Classic, Duration: time.Hour, Prize: 300, Fee: 1}
