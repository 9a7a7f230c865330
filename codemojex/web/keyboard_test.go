package web_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

// focusJS describes the focused element, and says whether it shows a
// focus ring: an outline of some width in a style other than none.
const focusJS = `(() => {
  const a = document.activeElement;
  const cs = getComputedStyle(a);
  return { who: a.tagName.toLowerCase() + (a.id ? "#" + a.id : "") + " " + JSON.stringify((a.getAttribute("aria-label") || a.textContent || "").trim().slice(0, 24)),
    ring: a === document.body || (cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0) };
})()`

// tabTo presses Tab (Shift+Tab when back) until the focus is on an
// element matching sel, at most presses times, checking after each press that
// the focused element shows its focus. It fails with the path it took.
func tabTo(sel string, back bool, presses int) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var opts []chromedp.KeyOption
		if back {
			opts = append(opts, chromedp.KeyModifiers(input.ModifierShift))
		}
		var path []string
		for range presses {
			if err := chromedp.KeyEvent(kb.Tab, opts...).Do(ctx); err != nil {
				return err
			}
			var f struct {
				Who  string `json:"who"`
				Ring bool   `json:"ring"`
			}
			if err := chromedp.Evaluate(focusJS, &f).Do(ctx); err != nil {
				return err
			}
			path = append(path, f.Who)
			if !f.Ring {
				return fmt.Errorf("%s has the focus but shows no focus ring (path: %s)", f.Who, strings.Join(path, " → "))
			}
			var at bool
			if err := chromedp.Evaluate(fmt.Sprintf(`document.activeElement.matches(%q)`, sel), &at).Do(ctx); err != nil {
				return err
			}
			if at {
				return nil
			}
		}
		return fmt.Errorf("%s not reached by %d presses of Tab (path: %s)", sel, presses, strings.Join(path, " → "))
	})
}

// keyboardOnly plays with the keyboard alone: Tab to the sign-in form,
// type a name, Enter; Tab to the room's Join button (which keeps the focus
// while the lobby updates live), Enter; Tab to the emoji keyboard and pick
// six with Enter and Space, the focus moving on to Submit; Enter; see the
// score; Shift+Tab back to the results link, Enter. Every page passes the
// audit on the way.
func keyboardOnly(t *testing.T, h *harness, ctx context.Context, name string, width, height int64, dir string) {
	t.Helper()
	shot := shooter(dir, "keyboard-"+name)
	join := `button[aria-label="Join Animal Farm"]`
	card := fmt.Sprintf(`[data-room=%q]`, h.room.ID)
	var me, players string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.EmulateViewport(width, height),
		chromedp.Navigate(h.url+"/"),
		chromedp.Evaluate(`localStorage.clear()`, nil),
		chromedp.Reload(),
		chromedp.WaitVisible(join, chromedp.ByQuery),
		tabTo(`#dev-name`, false, 12),
		chromedp.KeyEvent("kbd_"+name),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#signout`, chromedp.ByQuery),
		// The sign-in form hid under the focus: it moved on to the content.
		chromedp.Poll(`document.activeElement.id === "main"`, nil, chromedp.WithPollingTimeout(2*time.Second)),
		chromedp.Text(`#me`, &me, chromedp.ByQuery),
	), "keyboard %s: sign in (page says %q)", name, pageSays(ctx))
	require.Equal(t, "kbd_"+name, me)
	checkLobbyCard(t, h, ctx, true)

	// Another player joins while the focus rests on Join: the card updates
	// in place, and the focus stays.
	require.NoError(t, chromedp.Run(ctx,
		tabTo(join, false, 10),
		chromedp.Evaluate(`window.__noReload = 1; document.body.dataset.live`, nil),
		chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Text(card+` .players`, &players, chromedp.ByQuery),
	), "keyboard %s: to Join", name)
	var in struct{ Token string }
	require.Equal(t, 200, h.call("POST", "/api/auth/dev", "", map[string]string{"name": "lobby_" + name}, &in))
	require.Equal(t, 200, h.call("POST", "/api/rooms/"+h.room.ID+"/join", in.Token, nil, nil))
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Poll(fmt.Sprintf(`document.querySelector(%q).textContent !== %q`, card+" .players", players), nil, chromedp.WithPollingTimeout(8*time.Second)),
		chromedp.Poll(fmt.Sprintf(`window.__noReload === 1 && document.activeElement.matches(%q)`, join), nil, chromedp.WithPollingTimeout(time.Second)),
		audit("keyboard lobby"),
		shot("lobby"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#keyboard .key`, chromedp.ByQuery),
		chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		tabTo(`#keyboard .key:first-child`, false, 20),
	), "keyboard %s: live lobby and join (page says %q)", name, pageSays(ctx))

	// Six picks, by Enter and Space in turn, each key the next by Tab.
	for i := range 6 {
		key := kb.Enter
		if i%2 == 1 {
			key = " "
		}
		var acts []chromedp.Action
		if i > 0 {
			acts = append(acts, tabTo(fmt.Sprintf(`#keyboard .key:nth-child(%d)`, i+1), false, 1))
		}
		acts = append(acts, chromedp.KeyEvent(key),
			chromedp.Poll(fmt.Sprintf(`document.querySelectorAll('#slots .slot:not([aria-disabled="true"])').length === %d`, i+1), nil, chromedp.WithPollingTimeout(2*time.Second)))
		require.NoError(t, chromedp.Run(ctx, acts...), "keyboard %s: pick %d (page says %q)", name, i+1, pageSays(ctx))
	}
	var score string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Poll(`document.activeElement.id === "submit" && document.activeElement.getAttribute("aria-disabled") === "false"`, nil, chromedp.WithPollingTimeout(2*time.Second)),
		shot("composed"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.Poll(`document.getElementById("score").textContent.startsWith("You scored")`, nil, chromedp.WithPollingTimeout(8*time.Second)),
		chromedp.Text(`#score`, &score, chromedp.ByQuery),
		chromedp.WaitVisible(`#history li.hist`, chromedp.ByQuery),
		audit("keyboard game"),
		shot("scored"),
		tabTo(`a[href="/web/results"]`, true, 20),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`body[data-page="results"]`, chromedp.ByQuery),
		audit("keyboard results"),
	), "keyboard %s: submit (page says %q)", name, pageSays(ctx))
	require.Contains(t, score, "points")
}

// checkLobbyCard checks the room's card on the lobby: its prize and fee,
// and, while a game runs, a time left that counts down (without a reload)
// and agrees with the game's ends_ms. running requires a running game.
func checkLobbyCard(t *testing.T, h *harness, ctx context.Context, running bool) {
	t.Helper()
	card := fmt.Sprintf(`[data-room=%q]`, h.room.ID)
	if running {
		require.NoError(t, chromedp.Run(ctx, chromedp.Poll(fmt.Sprintf(`!document.querySelector(%q).hidden`, card+" .running"), nil, chromedp.WithPollingTimeout(5*time.Second))),
			"the lobby shows no running game (page says %q)", pageSays(ctx))
	}
	var money, first, shown string
	var active bool
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Text(card+" .money", &money, chromedp.ByQuery),
		chromedp.Evaluate(fmt.Sprintf(`!document.querySelector(%q).hidden`, card+" .running"), &active),
	))
	require.Contains(t, money, "Prize 1000 diamonds")
	require.Contains(t, money, "fee 1 key a guess")
	if !active {
		var waiting bool
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`!document.querySelector(%q).hidden`, card+" .waiting"), &waiting)))
		require.True(t, waiting, "a room without a running game says so")
		return
	}
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Text(card+" .timeleft", &first, chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`document.querySelector(%q).textContent !== %q`, card+" .timeleft", first), nil, chromedp.WithPollingTimeout(3*time.Second)),
		chromedp.Text(card+" .timeleft", &shown, chromedp.ByQuery),
	), "the countdown does not move from %q", first)
	var rooms struct {
		Rooms []struct {
			Room   string
			EndsMS int64 `json:"ends_ms"`
		}
	}
	require.Equal(t, 200, h.call("GET", "/api/rooms", "", nil, &rooms))
	var ends int64
	for _, r := range rooms.Rooms {
		if r.Room == h.room.ID {
			ends = r.EndsMS
		}
	}
	require.NotZero(t, ends)
	left := time.Until(time.UnixMilli(ends))
	got := parseClock(t, shown)
	require.InDelta(t, left.Seconds(), got.Seconds(), 3, "the card shows %q, %s are left", shown, left)
}

// parseClock reads the page's [Nd ][h:]m:ss.
func parseClock(t *testing.T, s string) time.Duration {
	t.Helper()
	var d time.Duration
	if days, rest, ok := strings.Cut(s, "d "); ok {
		n, err := strconv.Atoi(days)
		require.NoError(t, err, s)
		d, s = time.Duration(n)*24*time.Hour, rest
	}
	secs := 0
	for part := range strings.SplitSeq(s, ":") {
		n, err := strconv.Atoi(part)
		require.NoError(t, err, "clock %q", s)
		secs = secs*60 + n
	}
	return d + time.Duration(secs)*time.Second
}
