package web_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/webkit/browsertest"
)

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
	for _, vp := range browsertest.Viewports {
		ctx, cancel := context.WithTimeout(root, 90*time.Second)
		errs, err := watchConsole(ctx)
		require.NoError(t, err)
		p := &pass{t: t, h: h, ctx: ctx, name: vp.Name, phone: vp.Width < 700, shot: shooter(dir, "hour-"+vp.Name), errors: errs}
		require.NoError(t, chromedp.Run(ctx, vp.Emulate()))
		firstHour(p)
		operatorPages(p)
		cancel()
	}
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
