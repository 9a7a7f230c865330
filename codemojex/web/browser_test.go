package web_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// browser returns the path of a Chromium or Chrome, or "" when the machine
// has none. CHROMIUM names one explicitly.
func browser() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// artifacts returns the directory screenshots go to: WEB_ARTIFACTS when
// set, else a fresh temporary directory that outlives the test so the
// images can be looked at.
func artifacts(t *testing.T) string {
	dir := os.Getenv("WEB_ARTIFACTS")
	if dir == "" {
		d, err := os.MkdirTemp("", "codemojex-web-")
		require.NoError(t, err)
		dir = d
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// viewports are the widths every browser pass runs at.
var viewports = []struct {
	name          string
	width, height int64
}{
	{"desktop", 1280, 900},
	{"phone", 390, 844},
}

// TestBrowserPlay drives a real browser through a game at desktop and
// phone widths: sign in by name, join from the lobby, compose six emoji
// on the keyboard, submit, see the score, the history and the leaderboard,
// then see another player's guess land in the live feed and the
// leaderboard without a reload. Each page passes the accessibility audit
// on the way. Then the same again with the keyboard alone (keyboardOnly).
func TestBrowserPlay(t *testing.T) {
	t.Parallel()
	h, dir, root := browserRun(t)

	// The first tab, in front: input to a background tab can stall on
	// frames it never paints. Each pass clears the stored session for a
	// fresh sign-in. The first pass starts the room's game, so the later
	// ones see it running in the lobby.
	for _, vp := range viewports {
		ctx, cancel := context.WithTimeout(root, 30*time.Second)
		play(t, h, ctx, vp.name, vp.width, vp.height, dir)
		cancel()
	}
	for _, vp := range viewports {
		ctx, cancel := context.WithTimeout(root, 30*time.Second)
		keyboardOnly(t, h, ctx, vp.name, vp.width, vp.height, dir)
		cancel()
	}
	ctx, cancel := context.WithTimeout(root, 10*time.Second)
	defer cancel()
	auditCatches(t, h, ctx)
}

// browserRun skips the test when the machine has no browser; else it
// returns a fresh server, the screenshot directory and the first tab of a
// started browser.
func browserRun(t *testing.T) (*harness, string, context.Context) {
	t.Helper()
	exe := browser()
	if exe == "" {
		t.Skip("no Chromium found (install it: apt-get install -y chromium, or set CHROMIUM=/path/to/browser)")
	}
	h := newHarness(t)
	dir := artifacts(t)
	t.Logf("screenshots in %s", dir)
	return h, dir, startBrowser(t, exe)
}

// startBrowser starts a headless browser on a fresh profile and returns
// the context of its first tab; the test's cleanup stops it.
func startBrowser(t *testing.T, exe string) context.Context {
	t.Helper()

	// A fresh profile, removed by hand: the browser's helper processes may
	// still write to it a moment after the browser exits, which
	// t.TempDir's strict cleanup would report as a failure.
	profile, err := os.MkdirTemp("", "codemojex-chromium-")
	require.NoError(t, err)
	t.Cleanup(func() {
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond) // sleep: the pace of retrying a removal the browser's helpers may still race
		}
	})
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// Screenshots as wide as the viewport: no scrollbar takes 15px off.
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(profile),
	)
	t.Cleanup(cancelAlloc)
	root, cancelRoot := chromedp.NewContext(alloc)
	t.Cleanup(cancelRoot)
	require.NoError(t, chromedp.Run(root), "start %s", exe)
	return root
}

// shooter returns an action that writes a full-page screenshot to
// dir/<pass>-<step>.png.
func shooter(dir, pass string) func(step string) chromedp.Action {
	return func(step string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var b []byte
			if err := chromedp.FullScreenshot(&b, 100).Do(ctx); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s.png", pass, step)), b, 0o644)
		})
	}
}

func play(t *testing.T, h *harness, ctx context.Context, name string, width, height int64, dir string) {
	t.Helper()
	shot := shooter(dir, name)
	var score, me string
	var feedBefore int
	var overflow bool
	require.NoError(t, chromedp.Run(ctx,
		chromedp.EmulateViewport(width, height),
		chromedp.Navigate(h.url+"/"),
		chromedp.Evaluate(`localStorage.clear()`, nil),
		chromedp.Reload(),
		chromedp.WaitVisible(`#dev-name`, chromedp.ByQuery),
		chromedp.WaitVisible(`button[aria-label="Join Animal Farm"]`, chromedp.ByQuery),
		audit("signed-out lobby"),
		chromedp.SendKeys(`#dev-name`, "web_"+name, chromedp.ByQuery),
		chromedp.Click(`#dev-submit`, chromedp.ByQuery),
		chromedp.WaitVisible(`#signout`, chromedp.ByQuery),
		chromedp.Text(`#me`, &me, chromedp.ByQuery),
		audit("lobby"),
		shot("lobby"),
	), "%s: sign in", name)
	require.Equal(t, "web_"+name, me)
	checkLobbyCard(t, h, ctx, false)
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(`button[aria-label="Join Animal Farm"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#keyboard .key`, chromedp.ByQuery),
		chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		audit("game"),
	), "%s: join", name)

	// Compose: five keys by click, the sixth by keyboard (focus, Enter).
	for i := 1; i <= 5; i++ {
		require.NoError(t, chromedp.Run(ctx, tap(fmt.Sprintf(`#keyboard .key:nth-child(%d)`, i))))
	}
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Focus(`#keyboard .key:nth-child(6)`, chromedp.ByQuery),
		chromedp.KeyEvent("\r"),
		chromedp.Evaluate(`window.__noReload = 1; document.querySelectorAll('#slots .slot[aria-label$="empty"]').length === 0`, nil),
		chromedp.Poll(`document.getElementById("submit").getAttribute("aria-disabled") === "false"`, nil, chromedp.WithPollingTimeout(3*time.Second)),
		// The sixth pick sends the focus on to Submit.
		chromedp.Poll(`document.activeElement.id === "submit"`, nil, chromedp.WithPollingTimeout(time.Second)),
		audit("composed game"),
		shot("composed"),
		chromedp.Click(`#submit`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("score").textContent.startsWith("You scored")`, nil, chromedp.WithPollingTimeout(8*time.Second)),
		chromedp.Text(`#score`, &score, chromedp.ByQuery),
		chromedp.WaitVisible(`#history li.hist`, chromedp.ByQuery),
		// A guess of no points earns no row on the board.
		chromedp.Poll(fmt.Sprintf(`document.getElementById("score").textContent.startsWith("You scored 0 ") || [...document.querySelectorAll("#leaderboard li.lb")].some(li => li.textContent.includes("web_%s"))`, name), nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Poll(`document.querySelectorAll("#feed li").length > 0`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate(`document.querySelectorAll("#feed li").length`, &feedBefore),
		audit("scored game"),
		shot("scored"),
	), "%s: compose and submit (page says %q)", name, pageSays(ctx))
	require.Contains(t, score, "points")

	// Another player's guess reaches this page over the live feed.
	var game string
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.body.dataset.game`, &game)))
	var in struct{ Token string }
	require.Equal(t, 200, h.call("POST", "/api/auth/dev", "", map[string]string{"name": "rival_" + name}, &in))
	require.Equal(t, 200, h.call("POST", "/api/rooms/"+h.room.ID+"/join", in.Token, nil, nil))
	var g struct{ Game struct{ Keyboard []string } }
	require.Equal(t, 200, h.call("GET", "/api/games/"+game, "", nil, &g))
	var rc struct{ Receipt struct{ Guess string } }
	require.Equal(t, 202, h.call("POST", "/api/games/"+game+"/guess", in.Token, map[string]any{"codes": g.Game.Keyboard[6:12]}, &rc))
	var scored struct{ Guess struct{ Points int } }
	require.Equal(t, 200, h.call("GET", "/api/guesses/"+rc.Receipt.Guess+"?wait=5s", in.Token, nil, &scored))
	onBoard := "true"
	if scored.Guess.Points > 0 {
		onBoard = fmt.Sprintf(`[...document.querySelectorAll("#leaderboard li.lb")].some(li => li.textContent.includes("rival_%s"))`, name)
	}
	require.NoError(t, chromedp.Run(ctx,
		// The rival's join and scored guess both reach the feed.
		chromedp.Poll(fmt.Sprintf(`document.querySelectorAll("#feed li").length >= %d && %s`, feedBefore+2, onBoard), nil, chromedp.WithPollingTimeout(8*time.Second)),
		chromedp.Poll(`window.__noReload === 1`, nil, chromedp.WithPollingTimeout(time.Second)),
		chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth`, &overflow),
		audit("live game"),
		shot("live"),
	), "%s: live feed and leaderboard (page says %q)", name, pageSays(ctx))
	require.False(t, overflow, "%s: the page scrolls sideways at %dpx", name, width)

	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.url+"/web/results"),
		chromedp.Poll(`!document.querySelector("#results li.muted") || document.querySelector("#results li.muted").textContent !== "Loading…"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		audit("results"),
		shot("results"),
	), "%s: results", name)
}

// tap clicks the element sel as a finger would, after scrolling it to the
// middle of the viewport. On a phone the compose bar (the guess, Clear and
// Submit) sticks to the top of the screen over the keyboard; a click at the
// centre of a key the bar covers lands on the bar (a slot, Clear) instead,
// so a key is first brought out from under it, and a tap that would still
// land on something else fails here, naming the element, instead of
// silently pressing that.
func tap(sel string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var hit string
		js := fmt.Sprintf(`(() => {
			const k = document.querySelector(%q);
			if (!k) return "missing";
			k.scrollIntoView({block: "center", behavior: "instant"});
			const r = k.getBoundingClientRect();
			const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			return at === k || k.contains(at) ? "" : "covered by " + (at ? at.outerHTML.slice(0, 80) : "nothing");
		})()`, sel)
		if err := chromedp.Evaluate(js, &hit).Do(ctx); err != nil {
			return err
		}
		if hit != "" {
			return fmt.Errorf("tap %s: %s", sel, hit)
		}
		return chromedp.Click(sel, chromedp.ByQuery).Do(ctx)
	})
}

// pageSays reads the page's status and score lines for a failure message,
// in a context of its own since the test's may have run out.
func pageSays(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	var s string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("status").textContent + " | " + (document.getElementById("outage") || {}).textContent + " | " + (document.getElementById("guess-error") || {}).textContent + " | " + (document.getElementById("score") || {}).textContent + " | submit " + ((document.getElementById("submit") || {}).textContent) + " | slots " + document.querySelectorAll("#slots .slot:not([aria-disabled=true])").length + " | feed " + document.querySelectorAll("#feed li").length`, &s)); err != nil {
		return "unreadable: " + err.Error()
	}
	return s
}
