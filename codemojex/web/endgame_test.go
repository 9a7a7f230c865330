package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/tables"
	"github.com/echomq/echomq/webkit/browsertest"
)

// TestBrowserEndOfGame plays, at desktop and phone widths, a classic game
// to the crack and a blind game to its timer, in a real browser: the
// inline refusal of a duplicate pick next to Submit (cleared once the
// guess goes through), the end screen of each (result, revealed secret,
// the blind check, winners, the player's rank and winnings), the wallet
// moving after each act, names in the feed and the results, the feed
// filled again after a reload, the ledger and a diamond→key conversion.
// Every page passes the accessibility audit; screenshots go to
// $WEB_ARTIFACTS.
func TestBrowserEndOfGame(t *testing.T) {
	t.Parallel()
	h, dir, root := browserRun(t)
	for _, vp := range browsertest.Viewports {
		ctx, cancel := context.WithTimeout(root, 60*time.Second)
		endOfGame(t, h, ctx, vp.Name, vp.Width, vp.Height, dir)
		cancel()
	}
}

// secretOf reads a game's secret from its record: a test's privilege.
func secretOf(t *testing.T, h *harness, game string) []string {
	t.Helper()
	b, ok, err := tables.New(h.e.Client(), h.e.Queue(), "games").Get(context.Background(), game)
	require.NoError(t, err)
	require.True(t, ok)
	var g struct{ Secret string }
	require.NoError(t, json.Unmarshal(b, &g))
	return strings.Split(g.Secret, ",")
}

func waitWallet(ctx context.Context, keys, clips, diamonds int64) chromedp.Action {
	return chromedp.Poll(fmt.Sprintf(`document.body.dataset.wallet === "%d/%d/%d"`, keys, clips, diamonds), nil, chromedp.WithPollingTimeout(8*time.Second))
}

// pickCodes clicks the keys of codes in order.
func pickCodes(codes []string) chromedp.Action {
	var acts chromedp.Tasks
	for _, c := range codes {
		acts = append(acts, tap(fmt.Sprintf(`#keyboard .key[data-code="%s"]`, c)))
	}
	return acts
}

func endOfGame(t *testing.T, h *harness, ctx context.Context, vp string, width, height int64, dir string) {
	t.Helper()
	shot := shooter(dir, "end-"+vp)
	bg := context.Background()
	name := "end_" + vp
	_, err := h.e.CreateRoom(bg, codemojex.RoomSpec{Name: "Crack " + vp, Set: "animals", Mode: rules.Classic, Duration: time.Hour, Prize: 300, Fee: 1})
	require.NoError(t, err)
	_, err = h.e.CreateRoom(bg, codemojex.RoomSpec{Name: "Blind " + vp, Set: "food", Mode: rules.Blind, Duration: time.Minute, Prize: 200, Fee: 2, Free: true})
	require.NoError(t, err)

	// Sign in: the starter grant shows in the header at once.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.EmulateViewport(width, height),
		chromedp.Navigate(h.url+"/"),
		chromedp.Evaluate(`localStorage.clear()`, nil),
		chromedp.Reload(),
		chromedp.WaitVisible(`#dev-name`, chromedp.ByQuery),
		chromedp.SendKeys(`#dev-name`, name, chromedp.ByQuery),
		chromedp.Click(`#dev-submit`, chromedp.ByQuery),
		waitWallet(ctx, 50, 50, 0),
		chromedp.WaitVisible(fmt.Sprintf(`button[aria-label="Join Crack %s"]`, vp), chromedp.ByQuery),
		chromedp.Click(fmt.Sprintf(`button[aria-label="Join Crack %s"]`, vp), chromedp.ByQuery),
		chromedp.WaitVisible(`#keyboard .key`, chromedp.ByQuery),
		chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
	), "%s: sign in and join", vp)
	var game string
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.body.dataset.game`, &game)))
	secret := secretOf(t, h, game)

	// A duplicate pick is refused next to Submit, in emoji and places from
	// 1, and the key is marked used; the slot can be removed and re-picked.
	var errText string
	var slotsFilled int
	require.NoError(t, chromedp.Run(ctx,
		pickCodes(secret[:1]),
		pickCodes(secret[:1]),
		chromedp.Text(`#guess-error`, &errText, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#slots .slot:not([aria-disabled="true"])').length`, &slotsFilled),
		chromedp.Poll(fmt.Sprintf(`document.querySelector('#keyboard .key[data-code="%s"]').classList.contains("used") && document.querySelector('#keyboard .key[data-code="%s"]').getAttribute("aria-pressed") === "true"`, secret[0], secret[0]), nil, chromedp.WithPollingTimeout(time.Second)),
		audit("game with a refused pick"),
		shot("duplicate"),
		chromedp.Click(`#slots .slot[data-slot="0"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#slots .slot[aria-disabled="true"]').length === 6`, nil, chromedp.WithPollingTimeout(time.Second)),
	), "%s: duplicate pick", vp)
	require.Equal(t, 1, slotsFilled, "the duplicate never reached a slot")
	require.Contains(t, errText, "is already in place 1")

	// Submit the secret: the crack ends the game on screen.
	var result, winners, you, shown string
	require.NoError(t, chromedp.Run(ctx,
		pickCodes(secret),
		chromedp.Poll(`document.getElementById("guess-error").textContent === ""`, nil, chromedp.WithPollingTimeout(time.Second)),
		chromedp.Click(`#submit`, chromedp.ByQuery),
		chromedp.WaitVisible(`#end`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("end-title").textContent === "Cracked!" && document.getElementById("end-winners").textContent.includes("won")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Text(`#end-result`, &result, chromedp.ByQuery),
		chromedp.Text(`#end-winners`, &winners, chromedp.ByQuery),
		chromedp.Text(`#end-you`, &you, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("end-secret").textContent`, &shown),
		// The wallet: one key paid, the prize won.
		waitWallet(ctx, 49, 50, 300),
		chromedp.Poll(`document.getElementById("play").hidden && document.getElementById("end-blind").hidden`, nil, chromedp.WithPollingTimeout(time.Second)),
		audit("classic end screen"),
		shot("classic-end"),
	), "%s: crack (page says %q)", vp, pageSays(ctx))
	require.Equal(t, name+" cracked the code: a 600 ends a classic game at once.", result, "the line under Cracked! says more than it")
	require.Equal(t, name+" won 300 diamonds", winners)
	require.Equal(t, "You placed #1 of 1 player with 600 points and won 300 diamonds.", you)
	set, err := h.e.Set("animals")
	require.NoError(t, err)
	var glyphs string
	var glyphsSb132 strings.Builder
	for _, c := range secret {
		cell, _ := set.Cell(rules.Code(c))
		glyphsSb132.WriteString(cell.Glyph)
	}
	glyphs += glyphsSb132.String()
	require.Equal(t, glyphs, shown, "the revealed secret")

	// A reload fills the feed from the recent window, with names.
	var feed string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Reload(),
		chromedp.WaitVisible(`#end`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll("#feed li").length >= 2`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Text(`#feed`, &feed, chromedp.ByQuery),
		shot("classic-reloaded"),
	), "%s: reload", vp)
	require.Contains(t, feed, name+" scored 600 pts on guess 1")
	require.Contains(t, feed, "Crack "+vp+": game over, cracked; won by "+name+" +300 diamonds")

	// The results name the room and the winner, and link to the game.
	var res string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/web/results"),
		chromedp.WaitVisible(fmt.Sprintf(`#results li.result[data-game="%s"]`, game), chromedp.ByQuery),
		chromedp.Text(fmt.Sprintf(`#results li.result[data-game="%s"]`, game), &res, chromedp.ByQuery),
		chromedp.WaitVisible(fmt.Sprintf(`#results li.result[data-game="%s"] a[href="/web/games/%s"]`, game, game), chromedp.ByQuery),
		audit("results"),
		shot("results"),
	), "%s: results", vp)
	require.Contains(t, res, "Crack "+vp+" · classic game")
	require.Contains(t, res, "Won by "+name+" +300 diamonds")
	require.Contains(t, res, "1 player · 1 guess · best 600 of 600")

	// The wallet page: the prize in the ledger, then 10 diamonds → 1 key.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/web/ledger"),
		chromedp.WaitVisible(`#ledger-rows tr.ledger-row[data-reason="prize"]`, chromedp.ByQuery),
		audit("ledger"),
		chromedp.Click(`#convert-submit`, chromedp.ByQuery),
		waitWallet(ctx, 50, 50, 290),
		chromedp.WaitVisible(`#ledger-rows tr.ledger-row[data-reason="convert"]`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("convert-result").textContent === "Converted 10 diamonds into 1 key."`, nil, chromedp.WithPollingTimeout(time.Second)),
		audit("ledger after a conversion"),
		shot("ledger"),
	), "%s: ledger", vp)

	// A blind game: the commitment shows from the start, the score is
	// sealed, and the timer's end reveals the secret with the check.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/"),
		chromedp.WaitVisible(fmt.Sprintf(`button[aria-label="Join Blind %s"]`, vp), chromedp.ByQuery),
		chromedp.Click(fmt.Sprintf(`button[aria-label="Join Blind %s"]`, vp), chromedp.ByQuery),
		chromedp.WaitVisible(`#commitment`, chromedp.ByQuery),
		chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
	), "%s: join the blind game", vp)
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.body.dataset.game`, &game)))
	secret = secretOf(t, h, game)
	require.NoError(t, chromedp.Run(ctx,
		pickCodes(secret),
		chromedp.Click(`#submit`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("score").textContent === "Scored (sealed until the reveal)"`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		waitWallet(ctx, 50, 48, 290),
		audit("blind game"),
		shot("blind-sealed"),
	), "%s: blind guess (page says %q)", vp, pageSays(ctx))
	// Its minute runs out (the engine's clock moves on) and the sweep
	// closes it.
	h.ahead.Add(int64(2 * time.Minute))
	res2, err := h.e.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 1, res2.Closed)
	var verdict, bwin string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.WaitVisible(`#end-blind`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("end-verdict").textContent.includes("your browser")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Text(`#end-result`, &result, chromedp.ByQuery),
		chromedp.Text(`#end-verdict`, &verdict, chromedp.ByQuery),
		chromedp.Text(`#end-winners`, &bwin, chromedp.ByQuery),
		chromedp.Text(`#end-you`, &you, chromedp.ByQuery),
		waitWallet(ctx, 50, 48, 490),
		audit("blind end screen"),
		shot("blind-end"),
	), "%s: blind end (page says %q)", vp, pageSays(ctx))
	require.Equal(t, "The timer ran out: the best total wins.", result)
	require.Equal(t, "matches the commitment ✓; your browser recomputed it and agrees", verdict)
	require.Equal(t, name+" won 200 diamonds", bwin)
	require.Equal(t, "You placed #1 of 1 player with 600 points and won 200 diamonds.", you)
}
