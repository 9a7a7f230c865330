package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/api"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
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

// harness is a whole codemojex server on a queue of its own: engine,
// scoring worker, views, hub and the API on an httptest server. Every
// response it sees is recorded for the privacy scans.
type harness struct {
	t      *testing.T
	e      *codemojex.Engine
	views  *views.Views
	clock  *clock
	url    string
	client *echomq.Client

	mu        sync.Mutex
	responses []response
}

type response struct {
	Token  string // "" for a public read
	Method string
	Path   string
	Status int
	Body   string
}

func newHarness(t *testing.T) *harness { t.Helper(); return startHarness(t, true) }

// newIdleHarness is a harness whose guesses nobody scores: they stay queued.
func newIdleHarness(t *testing.T) *harness { t.Helper(); return startHarness(t, false) }

func startHarness(t *testing.T, scoring bool) *harness {
	t.Helper()
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	clk := &clock{t: time.Now()}
	e, err := codemojex.New(client, &codemojex.Config{Queue: echomqtest.Queue(t), Clock: clk.now, Logger: quiet})
	require.NoError(t, err)
	v, err := views.New(e, &views.Config{Block: 100 * time.Millisecond})
	require.NoError(t, err)
	hub := views.NewHub(e, 100*time.Millisecond)
	w, err := e.Worker(&lanes.WorkerConfig{Concurrency: 8, Logger: quiet})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = v.Run(ctx) })
	wg.Go(func() { _ = hub.Run(ctx) })
	if scoring {
		require.NoError(t, w.Start(ctx))
	}
	srv := httptest.NewServer(api.New(e, v, hub, &api.Config{OperatorToken: opToken, DevSignIn: true, MaxWait: 10 * time.Second, Logger: quiet}))
	t.Cleanup(func() {
		srv.Close()
		if scoring {
			require.NoError(t, w.Stop(context.Background()))
		}
		cancel()
		wg.Wait()
	})
	return &harness{t: t, e: e, views: v, clock: clk, url: srv.URL, client: client}
}

// do sends a request and returns the status and the body; every response
// is recorded.
func (h *harness) do(method, path, token string, body any) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	if s, ok := body.(string); ok {
		rd = strings.NewReader(s)
	} else if body != nil {
		b, err := json.Marshal(body)
		require.NoError(h.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	require.NoError(h.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	if token == opToken {
		token = "operator"
	}
	h.mu.Lock()
	h.responses = append(h.responses, response{Token: token, Method: method, Path: path, Status: resp.StatusCode, Body: string(b)})
	h.mu.Unlock()
	return resp.StatusCode, b
}

// call is do that requires status want and decodes the body into out.
func (h *harness) call(method, path, token string, body any, want int, out any) {
	h.t.Helper()
	status, b := h.do(method, path, token, body)
	require.Equal(h.t, want, status, "%s %s: %s", method, path, b)
	if out != nil {
		require.NoError(h.t, json.Unmarshal(b, out), "%s", b)
	}
}

type player struct {
	ID    string
	Name  string
	Token string
}

func (h *harness) signIn(name string, keys int64) player {
	h.t.Helper()
	var out struct {
		Token  string
		Player struct{ ID, Name string }
	}
	h.call("POST", "/api/auth/dev", "", map[string]string{"name": name}, 200, &out)
	if keys > 0 {
		h.call("POST", "/api/op/grant", opToken, map[string]any{"player": out.Player.ID, "currency": "keys", "amount": keys}, 200, nil)
	}
	return player{ID: out.Player.ID, Name: out.Player.Name, Token: out.Token}
}

func (h *harness) createRoom(req map[string]any) string {
	h.t.Helper()
	var out struct{ Room struct{ Room string } }
	h.call("POST", "/api/op/rooms", opToken, req, 201, &out)
	return out.Room.Room
}

func (h *harness) join(p player, room string) (game string, started bool) {
	h.t.Helper()
	var out struct {
		Game    string
		Started bool
	}
	h.call("POST", "/api/rooms/"+room+"/join", p.Token, nil, 200, &out)
	return out.Game, out.Started
}

// guess submits codes and waits for the score; it returns the guess id and
// its points.
func (h *harness) guess(p player, game string, codes []string) (string, int) {
	h.t.Helper()
	var rc struct{ Receipt struct{ Guess string } }
	h.call("POST", "/api/games/"+game+"/guess", p.Token, map[string]any{"codes": codes}, 202, &rc)
	for {
		var g struct {
			Guess struct {
				Status string
				Points int
			}
		}
		h.call("GET", "/api/guesses/"+rc.Receipt.Guess+"?wait=5s", p.Token, nil, 200, &g)
		if g.Guess.Status != codemojex.GuessQueued {
			require.Equal(h.t, codemojex.GuessScored, g.Guess.Status)
			return rc.Receipt.Guess, g.Guess.Points
		}
	}
}

// secret reads a game's secret from its record: a test's privilege.
func (h *harness) secret(game string) []string {
	h.t.Helper()
	b, ok, err := tables.New(h.client, h.e.Queue(), "games").Get(context.Background(), game)
	require.NoError(h.t, err)
	require.True(h.t, ok)
	var g struct{ Secret, Keyboard string }
	require.NoError(h.t, json.Unmarshal(b, &g))
	return strings.Split(g.Secret, ",")
}

func (h *harness) keyboard(game string) []string {
	h.t.Helper()
	var out struct{ Game struct{ Keyboard []string } }
	h.call("GET", "/api/games/"+game, "", nil, 200, &out)
	return out.Game.Keyboard
}

func (h *harness) sync() {
	h.t.Helper()
	require.NoError(h.t, h.views.Sync(context.Background()))
}

// events reads a stream whole.
func (h *harness) events(stream string) []echomq.Event {
	h.t.Helper()
	evs, err := h.e.Stream(stream).Read(context.Background(), echomq.All, nil)
	require.NoError(h.t, err)
	return evs
}

// requireLedgerBalances checks every player's wallet against the sum of
// their ledger rows, and each row's running balance.
func (h *harness) requireLedgerBalances(players ...player) {
	h.t.Helper()
	sums := map[string]map[codemojex.Currency]int64{}
	for _, ev := range h.events(codemojex.StreamLedger) {
		r := codemojex.ParseLedgerRow(ev.Fields)
		if sums[r.Player] == nil {
			sums[r.Player] = map[codemojex.Currency]int64{}
		}
		sums[r.Player][r.Currency] += r.Delta
		require.Equal(h.t, sums[r.Player][r.Currency], r.Balance, "running balance at %s", r.Txn)
	}
	for _, p := range players {
		var out struct{ Balance codemojex.Wallet }
		h.call("GET", "/api/balance", p.Token, nil, 200, &out)
		s := sums[p.ID]
		require.Equal(h.t, codemojex.Wallet{Keys: s[codemojex.Keys], Clips: s[codemojex.Clips], Diamonds: s[codemojex.Diamonds]}, out.Balance, p.Name)
	}
}

// permute returns codes with positions permuted: position i gets perm[i].
func permute(codes []string, perm ...int) []string {
	out := append([]string(nil), codes...)
	for i, j := range perm {
		out[i] = codes[j]
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// waitFor polls cond until it holds (at most 20s).
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	echomqtest.WaitFor(t, 20*time.Second, "the condition", cond)
}
