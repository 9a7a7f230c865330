package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/api"
	"github.com/echomq/echomq/codemojex/operator"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/codemojex/web"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

var quiet = slog.New(slog.DiscardHandler)

const botToken = "123456:test-bot-token"

// harness is a whole codemojex server on a queue of its own: engine,
// scoring worker, views, hub, the API and the web app on one mux.
type harness struct {
	t    *testing.T
	e    *codemojex.Engine
	url  string
	room codemojex.Room
	web  *web.Handler
	hub  *views.Hub
	// ahead moves the engine's clock forward (nanoseconds), so a test can
	// run a game out of time without waiting for it.
	ahead *atomic.Int64
}

// operatorToken signs in to the operator pages a harness serves at /op/.
const operatorToken = "op-token-for-tests"

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessOn(t, echomqtest.Shared(t).URL())
}

// newHarnessOn is newHarness on the engine at url (a server a test may
// kill and restart); the live feeds probe it every 500ms.
func newHarnessOn(t *testing.T, url string) *harness {
	t.Helper()
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: url, Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	ahead := new(atomic.Int64)
	clock := func() time.Time { return client.Now().Add(time.Duration(ahead.Load())) }
	e, err := codemojex.New(client, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet, StarterKeys: 50, StarterClips: 50, Clock: clock})
	require.NoError(t, err)
	v, err := views.New(e, &views.Config{Block: 100 * time.Millisecond})
	require.NoError(t, err)
	hub := views.NewHub(e, 100*time.Millisecond)
	w, err := e.Worker(&lanes.WorkerConfig{Concurrency: 4, Logger: quiet})
	require.NoError(t, err)
	room, err := e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Animal Farm", Set: "animals", Mode: rules.Classic, Duration: time.Hour, Prize: 1000, Fee: 1})
	require.NoError(t, err)
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = v.Run(rctx) })
	wg.Go(func() { _ = hub.Run(rctx) })
	require.NoError(t, w.Start(rctx))
	mux := http.NewServeMux()
	mux.Handle("/api/", api.New(e, v, hub, &api.Config{DevSignIn: true, Logger: quiet}))
	wh := web.New(e, hub, &web.Config{BotToken: botToken, DevSignIn: true, Logger: quiet, Views: v, EngineProbe: 500 * time.Millisecond})
	mux.Handle("/", wh)
	ops, err := operator.New(e, &operator.Config{OperatorToken: operatorToken, Logger: quiet})
	require.NoError(t, err)
	mux.Handle("/op/", ops)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		require.NoError(t, w.Stop(context.Background()))
		cancel()
		wg.Wait()
	})
	return &harness{t: t, e: e, url: srv.URL, room: room, web: wh, hub: hub, ahead: ahead}
}

// call sends a JSON request and decodes the answer into out; it returns
// the status.
func (h *harness) call(method, path, token string, body, out any) int {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
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
	if out != nil && len(b) > 0 {
		require.NoError(h.t, json.Unmarshal(b, out), "%s", b)
	}
	return resp.StatusCode
}
