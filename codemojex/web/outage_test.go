package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/app"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/webkit/browsertest"
)

// engineWords are what a page or an API answer must never show a player
// during an outage: the engine's transport, its errors and its address.
func engineWords(srv *echomqtest.Server) []string {
	return []string{srv.Addr(), strconv.Itoa(srv.Port()), "dial tcp", "transport", "connection refused", "redis", "echomq", "table get"}
}

// signInAs signs name in through the API and puts the session in the
// tab's storage, as the sign-in form does.
func signInAs(t *testing.T, h *harness, ctx context.Context, name string) string {
	t.Helper()
	var in struct {
		Token  string
		Player struct{ ID, Name string }
	}
	require.Equal(t, 200, h.call("POST", "/api/auth/dev", "", map[string]string{"name": name}, &in))
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/web/results"),
		chromedp.Evaluate(fmt.Sprintf(`localStorage.clear(); localStorage.setItem("cmx.token", %q); localStorage.setItem("cmx.name", %q); localStorage.setItem("cmx.player", %q)`,
			in.Token, in.Player.Name, in.Player.ID), nil),
	))
	return in.Token
}

// TestBrowserEngineOutage kills the engine (a real redis-server) under an
// open game page and starts it again, at desktop and phone sizes: the page
// says in a player's words that the game is out of reach (no engine text,
// no address, in the page or in the API's 503 bodies), a submit is
// refused with the same words and keeps the guess, a reload during the
// outage shows the message rather than an empty page, and once the engine
// is back the page recovers by itself, without a reload, and a guess is
// scored.
func TestBrowserEngineOutage(t *testing.T) {
	t.Parallel()
	exe := browsertest.Need(t)
	srv := echomqtest.StartPersistent(t)
	h := newHarnessOn(t, srv.URL())
	dir := browsertest.Artifacts(t, "codemojex-web-")
	root := browsertest.Start(t, exe)
	for _, vp := range browsertest.Viewports {
		ctx, cancel := context.WithTimeout(root, 150*time.Second)
		outage(t, h, srv, ctx, vp.Name, vp.Width, vp.Height, dir, vp.Name == "desktop")
		cancel()
	}
}

func outage(t *testing.T, h *harness, srv *echomqtest.Server, ctx context.Context, vp string, width, height int64, dir string, reload bool) {
	t.Helper()
	shot := shooter(dir, "outage-"+vp)
	require.NoError(t, chromedp.Run(ctx, chromedp.EmulateViewport(width, height)))
	token := signInAs(t, h, ctx, "out_"+vp)
	var j struct{ Game string }
	require.Equal(t, 200, h.call("POST", "/api/rooms/"+h.room.ID+"/join", token, nil, &j))
	var g struct{ Game struct{ Keyboard []string } }
	require.Equal(t, 200, h.call("GET", "/api/games/"+j.Game, "", nil, &g))
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/web/games/"+j.Game),
		chromedp.WaitVisible(`#keyboard .key`, chromedp.ByQuery),
		chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate(`window.__noReload = 1`, nil),
	), "%s: open the game", vp)

	// The engine dies under the open page: the page says so by itself.
	require.NoError(t, srv.Kill())
	noEngine := func(what, text string) {
		t.Helper()
		for _, w := range engineWords(srv) {
			require.NotContains(t, strings.ToLower(text), strings.ToLower(w), "%s: %s shows engine text", vp, what)
		}
	}
	var msg, page, errText string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Poll(`!document.getElementById("outage").hidden`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Text(`#outage`, &msg, chromedp.ByQuery),
		pickCodes(g.Game.Keyboard[:6]),
		chromedp.Click(`#submit`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("guess-error").textContent !== ""`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Text(`#guess-error`, &errText, chromedp.ByQuery),
		chromedp.Evaluate(`document.body.innerText`, &page),
		shot("down"),
	), "%s: the outage (page says %q)", vp, pageSays(ctx))
	require.Equal(t, "The game is out of reach for a moment. Your wallet and your guesses are safe: this page reconnects by itself.", msg)
	require.Equal(t, "Not sent: the game is out of reach for a moment. Your guess is kept here: submit it again once the page says it is back.", errText)
	noEngine("the page", page)
	var kept int
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll('#slots .slot:not([aria-disabled="true"])').length`, &kept)))
	require.Equal(t, 6, kept, "the refused guess stays in its slots")

	// The API's 503 answers say no more than the page.
	for _, req := range [][2]string{{"GET", "/api/games/" + j.Game}, {"POST", "/api/games/" + j.Game + "/guess"}} {
		r, err := http.NewRequest(req[0], h.url+req[1], strings.NewReader(`{"codes":["`+strings.Join(g.Game.Keyboard[:6], `","`)+`"]}`))
		require.NoError(t, err)
		r.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(r)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s %s: %s", req[0], req[1], b)
		require.Contains(t, string(b), "the game is out of reach for a moment: try again in a few seconds")
		noEngine(req[0]+" "+req[1], string(b))
	}

	if reload {
		// A reload during the outage shows the message, not an empty page.
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Reload(),
			chromedp.Poll(`document.getElementById("outage") && !document.getElementById("outage").hidden`, nil, chromedp.WithPollingTimeout(15*time.Second)),
			chromedp.Evaluate(`document.body.innerText`, &page),
			chromedp.Evaluate(`window.__noReload = 1`, nil),
			shot("reloaded-down"),
		), "%s: a reload during the outage (page says %q)", vp, pageSays(ctx))
		noEngine("the reloaded page", page)
	}

	// The engine is back: the page recovers without a reload, and a guess
	// goes through.
	srv.Restart(t)
	var status string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Poll(`document.getElementById("outage").hidden && document.querySelectorAll("#keyboard .key").length > 0`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Text(`#status`, &status, chromedp.ByQuery),
		chromedp.Poll(`window.__noReload === 1`, nil, chromedp.WithPollingTimeout(time.Second)),
	), "%s: recovery (page says %q)", vp, pageSays(ctx))
	require.Equal(t, "Back online: this page is up to date again.", status)
	if reload {
		require.NoError(t, chromedp.Run(ctx, pickCodes(g.Game.Keyboard[:6])))
	}
	// A write may be refused a few seconds longer than a read (the
	// client takes a new node lease once the engine answers): the page
	// says so each time, keeps the guess, and a press of Submit again
	// sends it, as a player would.
	began := time.Now()
	var score, said string
	for {
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Click(`#submit`, chromedp.ByQuery),
			chromedp.Poll(`document.getElementById("score").textContent.startsWith("You scored") || document.getElementById("guess-error").textContent.startsWith("Not sent")`, nil, chromedp.WithPollingTimeout(20*time.Second)),
			chromedp.Text(`#score`, &score, chromedp.ByQuery),
			chromedp.Evaluate(`document.getElementById("guess-error").textContent`, &said),
		), "%s: a guess after the recovery (page says %q)", vp, pageSays(ctx))
		if strings.HasPrefix(score, "You scored") {
			break
		}
		noEngine("the refusal", said)
		require.Less(t, time.Since(began), 45*time.Second, "%s: no guess went through %s after the recovery (page says %q)", vp, time.Since(began), pageSays(ctx))
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Poll(`document.getElementById("outage").hidden && document.getElementById("guess-error").textContent === "The game is back: press Submit to send your guess again."`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		), "%s: back again (page says %q)", vp, pageSays(ctx))
	}
	t.Logf("%s: the first guess after the recovery went through %s later", vp, time.Since(began).Round(time.Millisecond))
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Poll(`window.__noReload === 1`, nil, chromedp.WithPollingTimeout(time.Second)),
		shot("recovered"),
	))
}

// TestBrowserQuickGame plays the demo's quick game to its end screen at
// desktop and phone sizes: the lobby's card says its games are short, a
// guess is scored, and when its 3 minutes are up (the engine's clock moved
// on) the page turns into the end screen by itself.
func TestBrowserQuickGame(t *testing.T) {
	t.Parallel()
	h, dir, root := browserRun(t)
	for _, spec := range app.DemoRooms() {
		_, err := h.e.CreateRoom(context.Background(), spec)
		require.NoError(t, err)
	}
	quick := app.DemoRooms()[0]
	for _, vp := range browsertest.Viewports {
		ctx, cancel := context.WithTimeout(root, 60*time.Second)
		shot := shooter(dir, "quick-"+vp.Name)
		require.NoError(t, chromedp.Run(ctx, vp.Emulate()))
		signInAs(t, h, ctx, "quick_"+vp.Name)
		sel := fmt.Sprintf(`button[aria-label="Join %s"]`, quick.Name)
		var card string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(h.url+"/"),
			chromedp.WaitVisible(sel, chromedp.ByQuery),
			chromedp.Text(`#rooms li.card.quick`, &card, chromedp.ByQuery),
			shot("lobby"),
			chromedp.Click(sel, chromedp.ByQuery),
			chromedp.WaitVisible(`#keyboard .key`, chromedp.ByQuery),
			chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
			chromedp.Evaluate(`window.__noReload = 1`, nil),
		), "%s: join the quick game", vp.Name)
		require.Contains(t, card, quick.Name)
		require.Contains(t, card, "3-minute games: play one to its end right away")
		for i := 1; i <= 6; i++ {
			require.NoError(t, chromedp.Run(ctx, tap(fmt.Sprintf(`#keyboard .key:nth-child(%d)`, i))))
		}
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Click(`#submit`, chromedp.ByQuery),
			chromedp.Poll(`document.getElementById("score").textContent.startsWith("You scored")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
			shot("playing"),
		), "%s: a guess (page says %q)", vp.Name, pageSays(ctx))
		// Three minutes on the engine's clock, and the sweep closes it.
		h.ahead.Add(int64(quick.Duration + time.Second))
		res, err := h.e.Sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, 1, res.Closed)
		var end endScreen
		require.NoError(t, chromedp.Run(ctx,
			end.read(),
			chromedp.Poll(`window.__noReload === 1`, nil, chromedp.WithPollingTimeout(time.Second)),
			shot("end"),
		), "%s: the end screen (page says %q)", vp.Name, pageSays(ctx))
		require.Equal(t, "Time is up", end.title)
		require.True(t, strings.HasPrefix(end.result, "The timer ran out: the best total wins."), end.result)
		require.True(t, strings.HasPrefix(end.you, "You placed #1 of 1 player with ") || end.you == "You did not score above 0 this game.", end.you)
		cancel()
	}
}
