package web_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
)

// console collects what a tab reports as an error: console.error calls,
// uncaught exceptions and the browser's own error entries (an invalid
// pattern attribute, a resource that failed to load).
type console struct {
	mu   sync.Mutex
	errs []string
}

func watchConsole(ctx context.Context) (*console, error) {
	c := &console{}
	chromedp.ListenTarget(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type != runtime.APITypeError && e.Type != runtime.APITypeAssert {
				return
			}
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
			}
			msg = "console." + string(e.Type) + ": " + strings.Join(parts, " ")
		case *runtime.EventExceptionThrown:
			msg = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level != cdplog.LevelError {
				return
			}
			msg = string(e.Entry.Source) + ": " + e.Entry.Text + " " + e.Entry.URL
		default:
			return
		}
		c.mu.Lock()
		c.errs = append(c.errs, msg)
		c.mu.Unlock()
	})
	return c, chromedp.Run(ctx, cdplog.Enable())
}

// take returns the errors seen since the last take, leaving out those that
// contain an expected text.
func (c *console) take(expected ...string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.errs {
		if !slices.ContainsFunc(expected, func(x string) bool { return x != "" && strings.Contains(e, x) }) {
			out = append(out, e)
		}
	}
	c.errs = nil
	return out
}

// layoutJS measures a page: the header's height, the viewport's, whether
// the page is wider than the viewport (and what sticks out), whether a
// table is clipped inside its box, and whether the page prints a value the
// script lost (undefined, NaN).
const layoutJS = `(() => {
  const W = document.documentElement.clientWidth;
  const header = document.querySelector("header");
  const wide = [];
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 1 && getComputedStyle(el).position !== "absolute") wide.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " to " + Math.round(r.right));
  }
  const clipped = [...document.querySelectorAll("table")].filter((t) => t.parentElement.scrollWidth > t.parentElement.clientWidth + 1).map((t) => t.id || t.className);
  // A box made to scroll inside the page: a capped height that scrolls,
  // whether or not it holds enough to scroll yet.
  const nested = [...document.querySelectorAll("main *")].filter((el) => { const s = getComputedStyle(el); return (s.overflowY === "auto" || s.overflowY === "scroll") && (s.maxHeight !== "none" || el.scrollHeight > el.clientHeight + 1); }).map((el) => el.id || el.className);
  const text = document.body.innerText;
  return { header: header ? Math.round(header.getBoundingClientRect().height) : 0, height: window.innerHeight,
    overflow: document.documentElement.scrollWidth > W, wide: wide.slice(0, 5), clipped, nested,
    lost: /\bundefined\b|\bNaN\b/.test(text) };
})()`

type layout struct {
	Header   int      `json:"header"`
	Height   int      `json:"height"`
	Overflow bool     `json:"overflow"`
	Wide     []string `json:"wide"`
	Clipped  []string `json:"clipped"`
	Nested   []string `json:"nested"`
	Lost     bool     `json:"lost"`
}

// pass is one viewport's walk: a tab, its console and its screenshots.
type pass struct {
	t      *testing.T
	h      *harness
	ctx    context.Context
	name   string
	phone  bool
	shot   func(string) chromedp.Action
	errors *console
}

// check measures the page now shown and fails on a console error (other
// than those expected), a failed accessibility audit, a page wider than the viewport, a clipped table,
// a lost value and, on the phone, a header taller than a quarter of the
// viewport or a box that scrolls inside the page; then it saves a
// screenshot.
func (p *pass) check(page string, expected ...string) {
	p.t.Helper()
	var l layout
	require.NoError(p.t, chromedp.Run(p.ctx,
		chromedp.Poll(`document.readyState === "complete" && !/Loading…/.test(document.body.innerText)`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate(layoutJS, &l),
		audit(page),
		p.shot(page),
	), "%s: %s", p.name, page)
	require.Empty(p.t, p.errors.take(expected...), "%s: %s: console errors", p.name, page)
	require.False(p.t, l.Overflow, "%s: %s scrolls sideways: %v", p.name, page, l.Wide)
	require.Empty(p.t, l.Clipped, "%s: %s: tables clipped in their box", p.name, page)
	require.False(p.t, l.Lost, "%s: %s prints undefined or NaN", p.name, page)
	if p.phone {
		require.LessOrEqual(p.t, l.Header, l.Height/4, "%s: %s: the header takes %dpx of %dpx", p.name, page, l.Header, l.Height)
		require.Empty(p.t, l.Nested, "%s: %s: boxes that scroll inside the page", p.name, page)
	}
}

// TestBrowserFirstHour walks every page of the game and of the operator
// at desktop and phone sizes, as a newcomer does in the first hour: the
// pages signed out and signed in, a name too long refused with a message,
// a guess of 0 points shown as 0 in the feed and the results after a
// reload, a join that stays in the feed after a reload, the not-found
// pages, the operator's pages and the confirmation before a game is
// closed. Every page: no console error, no sideways scroll, no clipped
// table, no "undefined"; on the phone the header within a quarter of the
// viewport and no box scrolling inside the page. Screenshots of each go
// to $WEB_ARTIFACTS.
func TestBrowserFirstHour(t *testing.T) {
	t.Parallel()
	h, dir, root := browserRun(t)
	for _, vp := range viewports {
		ctx, cancel := context.WithTimeout(root, 90*time.Second)
		errs, err := watchConsole(ctx)
		require.NoError(t, err)
		p := &pass{t: t, h: h, ctx: ctx, name: vp.name, phone: vp.width < 700, shot: shooter(dir, "hour-"+vp.name), errors: errs}
		require.NoError(t, chromedp.Run(ctx, chromedp.EmulateViewport(vp.width, vp.height)))
		firstHour(p)
		operatorPages(p)
		cancel()
	}
}

// consoleCatches plants an input with the pattern the sign-in used to
// have, invalid under the v flag browsers compile patterns with, and
// checks the console watch reports it, so a clean console means something.
func TestBrowserConsoleCatches(t *testing.T) {
	t.Parallel()
	h, _, root := browserRun(t)
	ctx, cancel := context.WithTimeout(root, 20*time.Second)
	defer cancel()
	errs, err := watchConsole(ctx)
	require.NoError(t, err)
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/web/results"),
		chromedp.WaitVisible(`#results`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const i = document.createElement("input"); i.pattern = "[A-Za-z0-9._-]+"; i.value = "x"; document.body.append(i); return i.checkValidity(); })()`, nil),
		chromedp.Poll(`true`, nil),
	))
	require.Eventually(t, func() bool {
		errs.mu.Lock()
		defer errs.mu.Unlock()
		return slices.ContainsFunc(errs.errs, func(e string) bool { return strings.Contains(e, "Pattern attribute value") })
	}, 5*time.Second, 50*time.Millisecond, "the watch misses the invalid pattern")
}

func firstHour(p *pass) {
	t, h, ctx := p.t, p.h, p.ctx
	bg := context.Background()
	room, err := h.e.CreateRoom(bg, codemojex.RoomSpec{Name: "Zero " + p.name, Set: "animals", Mode: "classic", Duration: time.Hour, Prize: 100, Fee: 1})
	require.NoError(t, err)

	// Signed out: the lobby, the results, the wallet page, how to play.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/"),
		chromedp.Evaluate(`localStorage.clear()`, nil),
		chromedp.Reload(),
		chromedp.WaitVisible(`#dev-name`, chromedp.ByQuery),
		chromedp.WaitVisible(fmt.Sprintf(`button[aria-label="Join Zero %s"]`, p.name), chromedp.ByQuery),
	))
	p.check("signed-out-lobby")
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("howto").open = true`, nil)))
	p.check("howto")
	var marker string
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`getComputedStyle(document.querySelector("#howto summary")).display`, &marker)))
	require.Equal(t, "list-item", marker, "How to play keeps its disclosure marker")

	// Join before signing in: the message sits at the sign-in form, whose
	// field has the focus.
	var msg, focused string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(fmt.Sprintf(`button[aria-label="Join Zero %s"]`, p.name), chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("signin-msg").textContent !== ""`, nil, chromedp.WithPollingTimeout(2*time.Second)),
		chromedp.Text(`#signin-msg`, &msg, chromedp.ByQuery),
		chromedp.Evaluate(`document.activeElement.id`, &focused),
	))
	require.Equal(t, "Sign in first to join Zero "+p.name+".", msg)
	require.Equal(t, "dev-name", focused)

	// A name of 70 characters is refused with a message, not cut to 64.
	long := strings.Repeat("n", 70)
	var signedIn bool
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SendKeys(`#dev-name`, long, chromedp.ByQuery),
		chromedp.Click(`#dev-submit`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("signin-msg").textContent.includes("70 characters")`, nil, chromedp.WithPollingTimeout(2*time.Second)),
		chromedp.Text(`#signin-msg`, &msg, chromedp.ByQuery),
		chromedp.Evaluate(`!!localStorage.getItem("cmx.token")`, &signedIn),
	))
	require.Equal(t, "That name has 70 characters: a name has at most 64. Nothing was sent.", msg)
	require.False(t, signedIn)
	p.check("long-name-refused")

	// A name of 64 characters signs in and keeps the header one line tall.
	name := "zero_" + p.name
	var meHeight, whoHeight int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SetValue(`#dev-name`, strings.Repeat("m", 64), chromedp.ByQuery),
		chromedp.Click(`#dev-submit`, chromedp.ByQuery),
		chromedp.WaitVisible(`#signout`, chromedp.ByQuery),
		chromedp.Evaluate(`Math.round(document.getElementById("me").getBoundingClientRect().height)`, &meHeight),
		chromedp.Evaluate(`Math.round(document.getElementById("who").getBoundingClientRect().height)`, &whoHeight),
	))
	require.LessOrEqual(t, meHeight, 30, "a long name stays on one line")
	p.check("long-name-header")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(`#signout`, chromedp.ByQuery),
		chromedp.WaitVisible(`#dev-name`, chromedp.ByQuery),
		chromedp.SetValue(`#dev-name`, name, chromedp.ByQuery),
		chromedp.Click(`#dev-submit`, chromedp.ByQuery),
		chromedp.WaitVisible(`#signout`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("status").textContent === "Signed in as `+name+`."`, nil, chromedp.WithPollingTimeout(2*time.Second)),
		chromedp.Poll(`document.getElementById("w-keys").textContent === "50 keys"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
	))
	p.check("lobby")

	// A guess of 0 points: six emoji none of which is in the secret.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(fmt.Sprintf(`button[aria-label="Join Zero %s"]`, p.name), chromedp.ByQuery),
		chromedp.WaitVisible(`#keyboard .key`, chromedp.ByQuery),
		chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
	))
	var game string
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.body.dataset.game`, &game)))
	secret := secretOf(t, h, game)
	g, err := h.e.Game(bg, game)
	require.NoError(t, err)
	var miss []string
	for _, c := range g.Keyboard {
		if !slices.Contains(secret, c) && len(miss) < 6 {
			miss = append(miss, c)
		}
	}
	var score string
	require.NoError(t, chromedp.Run(ctx,
		pickCodes(miss),
		chromedp.Click(`#submit`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("score").textContent.startsWith("You scored")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Text(`#score`, &score, chromedp.ByQuery),
	), "%s: the 0-point guess (page says %q)", p.name, pageSays(ctx))
	require.Equal(t, "You scored 0 points (0%)", score)

	// A rival joins: the join shows live, and stays after a reload.
	var in struct{ Token string }
	require.Equal(t, 200, h.call("POST", "/api/auth/dev", "", map[string]string{"name": "rival0_" + p.name}, &in))
	require.Equal(t, 200, h.call("POST", "/api/rooms/"+room.ID+"/join", in.Token, nil, nil))
	var feed, hist, players string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Poll(`document.getElementById("feed").textContent.includes("rival0_`+p.name+` joined")`, nil, chromedp.WithPollingTimeout(8*time.Second)),
		chromedp.Reload(),
		chromedp.WaitVisible(`#history li.hist`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll("#feed li").length >= 3`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Text(`#feed`, &feed, chromedp.ByQuery),
		chromedp.Text(`#history`, &hist, chromedp.ByQuery),
		chromedp.Text(`#players`, &players, chromedp.ByQuery),
	))
	require.Contains(t, feed, name+" scored 0 pts on guess 1", "a 0-point guess after a reload")
	require.Contains(t, feed, "rival0_"+p.name+" joined", "a join after a reload")
	require.Contains(t, feed, name+" started a game in Zero "+p.name)
	require.Contains(t, hist, "0 pts (0%)")
	require.Equal(t, "2", players)
	p.check("game-zero-points")

	// The operator ends it: the end screen places the player among both.
	_, err = h.e.Close(bg, game, codemojex.ReasonOperator)
	require.NoError(t, err)
	var end endScreen
	require.NoError(t, chromedp.Run(ctx, end.read()))
	title, result, you := end.title, end.result, end.you
	require.Equal(t, "Closed by the operator", title)
	require.Equal(t, "The operator closed the game early: the best total so far wins. Nobody scored above 0, so no prize was paid.", result)
	require.Equal(t, "You did not score above 0 this game.", you)
	p.check("game-closed")

	// The results, after a reload: the 0-point guess reads 0.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/web/results"),
		chromedp.WaitVisible(fmt.Sprintf(`#results li.result[data-game="%s"]`, game), chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("feed").textContent.includes("`+name+` scored 0 pts")`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Text(`#feed`, &feed, chromedp.ByQuery),
	))
	require.NotContains(t, feed, "undefined")
	p.check("results")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/web/ledger"),
		chromedp.WaitVisible(`#ledger-rows tr.ledger-row[data-reason="guess"]`, chromedp.ByQuery),
		chromedp.Text(`#ledger-rows tr.ledger-row[data-reason="guess"]`, &feed, chromedp.ByQuery),
	))
	require.Contains(t, feed, "−1 key", "a charge of one key, in words")
	p.check("ledger")

	// Not found: an unknown game and an unknown route answer a page that
	// says so (the 404 itself is the only error the console shows).
	for page, path := range map[string]string{"no-game": "/web/games/GAM0000000000x", "no-route": "/web/nowhere"} {
		var text string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(h.url+path),
			chromedp.WaitVisible(`#notfound`, chromedp.ByQuery),
			chromedp.Text(`#notfound`, &text, chromedp.ByQuery),
		))
		require.Contains(t, text, "There is no ")
		p.check(page, path, "status of 404")
	}
}

// operatorPages signs in to the operator pages and walks them: rooms,
// a player found by name, health, and the confirmation a close asks for.
func operatorPages(p *pass) {
	t, h, ctx := p.t, p.h, p.ctx
	bg := context.Background()
	room, err := h.e.CreateRoom(bg, codemojex.RoomSpec{Name: "Vault " + p.name, Set: "food", Mode: "blind", Duration: 2 * time.Hour, Prize: 1000, Fee: 2})
	require.NoError(t, err)
	pl, _, err := h.e.SignIn(bg, codemojex.Identity{Provider: "dev", Subject: "op_" + p.name})
	require.NoError(t, err)
	joined, err := h.e.Join(bg, pl.ID, room.ID)
	require.NoError(t, err)

	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/op/signin"),
		chromedp.WaitVisible(`#token`, chromedp.ByQuery),
	))
	p.check("op-signin")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SetValue(`#token`, operatorToken, chromedp.ByQuery),
		chromedp.Submit(`#token`, chromedp.ByQuery),
		chromedp.WaitVisible(`#rooms`, chromedp.ByQuery),
	))
	p.check("op-rooms")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/op/players?player="+url.QueryEscape("op_"+p.name)),
		chromedp.WaitVisible(`#wallet`, chromedp.ByQuery),
	))
	p.check("op-player")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/op/health"),
		chromedp.WaitVisible(`#health-title`, chromedp.ByQuery),
	))
	p.check("op-health")

	// "Close game now…" asks first; "No" leaves the game running.
	var ask string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/op/rooms"),
		chromedp.Click(fmt.Sprintf(`button[aria-label="Close game %s of Vault %s now…"]`, joined.Game, p.name), chromedp.ByQuery),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		chromedp.Text(`#confirm-title`, &ask, chromedp.ByQuery),
	))
	require.Equal(t, "Close game "+joined.Game+" of Vault "+p.name+" now?", ask)
	p.check("op-close-confirm")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(`#keep-open`, chromedp.ByQuery),
		chromedp.WaitVisible(`#rooms`, chromedp.ByQuery),
	))
	g, err := h.e.Game(bg, joined.Game)
	require.NoError(t, err)
	require.Equal(t, codemojex.StatusOpen, g.Status, "the game runs on")
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(fmt.Sprintf(`button[aria-label="Close game %s of Vault %s now…"]`, joined.Game, p.name), chromedp.ByQuery),
		chromedp.WaitVisible(`#confirm-close`, chromedp.ByQuery),
		chromedp.Click(`#confirm-close`, chromedp.ByQuery),
		chromedp.WaitVisible(`#notice`, chromedp.ByQuery),
	))
	g, err = h.e.Game(bg, joined.Game)
	require.NoError(t, err)
	require.Equal(t, codemojex.StatusSettled, g.Status)
	p.check("op-closed")
	require.NoError(t, chromedp.Run(ctx, chromedp.Submit(`form.signout button`, chromedp.ByQuery), chromedp.WaitVisible(`#token`, chromedp.ByQuery)))
}

// endScreen is what a game's end screen says, once the page shows it.
type endScreen struct{ title, result, you string }

// read waits for the end screen, filled, and reads it.
func (e *endScreen) read() chromedp.Action {
	return chromedp.Tasks{
		chromedp.WaitVisible(`#end`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("end").dataset.done === "1"`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Text(`#end-title`, &e.title, chromedp.ByQuery),
		chromedp.Text(`#end-result`, &e.result, chromedp.ByQuery),
		chromedp.Text(`#end-you`, &e.you, chromedp.ByQuery),
	}
}
