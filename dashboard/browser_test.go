package dashboard_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/echomqtest"
)

// chromium returns the path of a Chromium or Chrome, or "" when the
// machine has none. CHROMIUM names one explicitly.
func chromium() string {
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
		d, err := os.MkdirTemp("", "echomq-dashboard-")
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
	{"desktop", 1280, 800},
	{"phone", 390, 844},
}

// startChromium starts a headless browser on a fresh profile and returns
// the context of its first tab; the test's cleanup stops it.
func startChromium(t *testing.T, exe string) context.Context {
	t.Helper()
	// A fresh profile, removed by hand: the browser's helper processes may
	// still write to it a moment after the browser exits, which
	// t.TempDir's strict cleanup would report as a failure.
	profile, err := os.MkdirTemp("", "echomq-dashboard-chromium-")
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
		chromedp.UserDataDir(profile),
	)
	t.Cleanup(cancelAlloc)
	root, cancelRoot := chromedp.NewContext(alloc)
	t.Cleanup(cancelRoot)
	require.NoError(t, chromedp.Run(root), "start %s", exe)
	return root
}

// shooter returns an action that writes a full-page screenshot to
// dir/dashboard-<pass>-<step>.png.
func shooter(dir, pass string) func(step string) chromedp.Action {
	return func(step string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var b []byte
			if err := chromedp.FullScreenshot(&b, 100).Do(ctx); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, fmt.Sprintf("dashboard-%s-%s.png", pass, step)), b, 0o644)
		})
	}
}

// checkPageJS lists what fails the basics on the page: form fields
// without a label, buttons and links without a name, charts without a
// text alternative, headings that skip a level, and content wider than
// the viewport (the tables scroll inside their own box instead).
const checkPageJS = `(() => {
  const bad = [];
  for (const el of document.querySelectorAll("input:not([type=hidden]), select, textarea"))
    if (!el.labels || el.labels.length === 0) bad.push("unlabelled field " + (el.id || el.name));
  for (const el of document.querySelectorAll("button, a[href]"))
    if (!(el.getAttribute("aria-label") || el.textContent).trim()) bad.push("nameless " + el.outerHTML.slice(0, 60));
  for (const el of document.querySelectorAll("svg[role=img]"))
    if (!el.getAttribute("aria-label")) bad.push("chart without a label");
  if (document.querySelectorAll("h1").length !== 1) bad.push("want one h1");
  let last = 0;
  for (const h of document.querySelectorAll("h1, h2, h3")) { const n = +h.tagName[1]; if (n > last + 1) bad.push("heading skips to " + h.tagName); last = n; }
  if (document.documentElement.scrollWidth > window.innerWidth + 1) bad.push("page wider than the viewport: " + document.documentElement.scrollWidth + " > " + window.innerWidth);
  return bad;
})()`

// checkPage fails listing every offence checkPageJS finds on the page.
func checkPage(page string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var bad []string
		if err := chromedp.Evaluate(checkPageJS, &bad).Do(ctx); err != nil {
			return fmt.Errorf("%s page: %w", page, err)
		}
		if len(bad) > 0 {
			return fmt.Errorf("%s page: %s", page, strings.Join(bad, "; "))
		}
		return nil
	})
}

// consoleErrors collects what the pages of a tab report as errors: script
// exceptions, console.error calls and the browser's own error entries (a
// Content-Security-Policy violation, an invalid pattern, a failed script),
// but not the "failed to load resource" line of a page answered with an
// error status on purpose.
type consoleErrors struct {
	mu   sync.Mutex
	errs []string
}

// listen starts collecting in the tab of ctx.
func (c *consoleErrors) listen(ctx context.Context) chromedp.Action {
	chromedp.ListenTarget(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				msg = "console." + string(e.Type) + ":"
				for _, a := range e.Args {
					msg += " " + string(a.Value) + a.Description
				}
			}
		case *cdplog.EventEntryAdded:
			if (e.Entry.Level == cdplog.LevelError || e.Entry.Level == cdplog.LevelWarning) && e.Entry.Source != cdplog.SourceNetwork {
				msg = string(e.Entry.Source) + ": " + e.Entry.Text + " (" + e.Entry.URL + ")"
			}
		}
		if msg != "" {
			c.mu.Lock()
			c.errs = append(c.errs, msg)
			c.mu.Unlock()
		}
	})
	return cdplog.Enable()
}

// none fails if any error was collected.
func (c *consoleErrors) none(what string) chromedp.Action {
	return chromedp.ActionFunc(func(context.Context) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.errs) > 0 {
			return fmt.Errorf("%s: console errors: %s", what, strings.Join(c.errs, "; "))
		}
		return nil
	})
}

// count evaluates expr, a number, into *n.
func count(expr string, n *int) chromedp.Action {
	return chromedp.Evaluate(expr, n)
}

// eval runs a script that returns true, and fails if it returns anything
// else.
func eval(js string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var ok bool
		if err := chromedp.Evaluate(js, &ok).Do(ctx); err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("script returned false: %.60s", js)
		}
		return nil
	})
}

// says returns the location and text of the page, for failure messages,
// in a context of its own since the test's may have run out.
func says(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var s string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`location.href + "\n" + document.body.innerText.slice(0, 2000)`, &s)); err != nil {
		return "unreadable: " + err.Error()
	}
	return s
}

// clearCookies ends the browser's sessions.
var clearCookies = chromedp.ActionFunc(func(ctx context.Context) error {
	return network.ClearBrowserCookies().Do(ctx)
})

// run runs steps in the tab of ctx; a failure says what the page shows.
func run(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, steps...); err != nil {
		t.Fatalf("%s: %v (page says %q)", what, err, says(ctx))
	}
}

// clickThrough clicks the element that sel (a CSS selector) finds and
// waits until the page it leads to has loaded: a query started on the old
// page could wait on a document that is about to go away.
func clickThrough(sel string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if err := chromedp.Evaluate(`window.__left = true`, nil).Do(ctx); err != nil {
			return err
		}
		if err := chromedp.Click(sel, chromedp.ByQuery).Do(ctx); err != nil {
			return err
		}
		for ctx.Err() == nil {
			// Errors are the navigation in progress (the old context gone).
			var loaded bool
			if err := chromedp.Evaluate(`window.__left !== true && document.readyState === "complete"`, &loaded).Do(ctx); err == nil && loaded {
				return nil
			}
			time.Sleep(50 * time.Millisecond) // sleep: the next look at the page (a poll bounded by ctx)
		}
		return ctx.Err()
	})
}

// text returns the trimmed text of the first element matching sel.
func text(ctx context.Context, t *testing.T, sel string) string {
	t.Helper()
	var s string
	require.NoError(t, chromedp.Run(ctx, chromedp.Text(sel, &s, chromedp.ByQuery)), "text of %s", sel)
	return strings.TrimSpace(s)
}

// TestBrowser drives a real browser through the dashboard at desktop and
// phone widths: sign in, see the overview update live, browse a stream's
// time window across the archive seam, replay a dead letter, retry a dead
// job, pause and resume a lane; then see a write refused once the session
// is gone, and on a read-only dashboard.
func TestBrowser(t *testing.T) {
	t.Parallel()
	exe := chromium()
	if exe == "" {
		t.Skip("no Chromium found (install it: make chromium, or apt-get install -y chromium; or set CHROMIUM=/path/to/browser)")
	}
	b := setup(t, nil)
	ids, w := b.archived(t, 7, 3)
	dls := b.deadLetters(t, "audit", len(viewports))
	for range viewports {
		b.deadJob(t, "PLR-ada")
	}
	for range 2 {
		_, err := b.lanes.Enqueue(b.ctx, "PLR-bob", []byte("{}"), nil)
		require.NoError(t, err)
	}
	ro := setup(t, func(c *dashboard.Config) { c.ReadOnly = true })
	dir := artifacts(t)
	t.Logf("screenshots in %s", dir)
	root := startChromium(t, exe)

	for i, vp := range viewports {
		ctx, cancel := context.WithTimeout(root, 60*time.Second)
		shot := shooter(dir, vp.name)
		q := b.srv.URL + "/q/" + b.queue
		console := &consoleErrors{}
		run(t, ctx, vp.name+": listen", console.listen(ctx))

		// Sign in; the overview's numbers arrive live.
		run(t, ctx, vp.name+": sign in",
			clearCookies,
			chromedp.EmulateViewport(vp.width, vp.height),
			chromedp.Navigate(b.srv.URL+"/"),
			chromedp.WaitVisible(`#token`, chromedp.ByQuery),
			checkPage("sign-in"),
			chromedp.SendKeys(`#token`, token, chromedp.ByQuery),
			clickThrough(`#signin`),
			chromedp.WaitVisible(`#signout`, chromedp.ByQuery),
			chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(10*time.Second)),
			checkPage("overview"),
			shot("overview"),
		)
		require.Equal(t, "Writes on", text(ctx, t, "#mode"))

		// The read pages not visited below, each checked and shot.
		for _, pg := range []struct{ name, path, sel string }{
			{"groups", "/q/" + b.queue + "/streams/audit/groups", "main h2"},
			{"dead-letter", "/q/" + b.queue + "/streams/audit/dead/" + dls[0].ID.String(), "main table"},
			{"archive", "/archive", "main h1"},
			{"verify", "/archive/" + b.queue + "/orders/verify", "main h1"},
			{"projections", "/projections", "main h1"},
		} {
			run(t, ctx, vp.name+": "+pg.name,
				chromedp.Navigate(b.srv.URL+pg.path),
				chromedp.WaitVisible(pg.sel, chromedp.ByQuery),
				checkPage(pg.name),
				shot(pg.name),
			)
		}

		// The stream's first page: four archived events, the seam, a live
		// one; the next page is live.
		var archived, live, seams int
		run(t, ctx, vp.name+": stream",
			chromedp.Navigate(q+"/streams/orders?n=5"),
			chromedp.WaitVisible(`#events`, chromedp.ByQuery),
			count(`document.querySelectorAll("#events tr.archived").length`, &archived),
			count(`document.querySelectorAll("#events tr.livetail").length`, &live),
			count(`document.querySelectorAll("#events tr.seam").length`, &seams),
			checkPage("stream"),
			shot("stream-seam"),
		)
		require.Equal(t, []int{4, 1, 1}, []int{archived, live, seams})
		require.Contains(t, text(ctx, t, "#watermark"), w.String())
		run(t, ctx, vp.name+": next page",
			clickThrough(`#next`),
			chromedp.WaitVisible(`#prev`, chromedp.ByQuery),
			count(`document.querySelectorAll("#events tr.livetail").length`, &live),
			count(`document.querySelectorAll("#events tr.archived").length`, &archived),
		)
		require.Equal(t, []int{0, 2}, []int{archived, live})
		// A time window that starts in the archive and ends in the live tail.
		run(t, ctx, vp.name+": window",
			chromedp.Navigate(q+"/streams/orders"),
			chromedp.WaitVisible(`#from`, chromedp.ByQuery),
			chromedp.SendKeys(`#from`, ids[2].EntryID().String(), chromedp.ByQuery),
			chromedp.SendKeys(`#to`, ids[4].EntryID().String(), chromedp.ByQuery),
			clickThrough(`#show`),
			chromedp.WaitVisible(`#seam`, chromedp.ByQuery),
			count(`document.querySelectorAll("#events tr.archived, #events tr.livetail").length`, &live),
			shot("stream-window"),
		)
		require.Equal(t, 3, live, "events 2, 3 (archived) and 4 (live)")

		// Replay a dead letter.
		run(t, ctx, vp.name+": replay",
			chromedp.Navigate(q+"/streams/audit/dead"),
			chromedp.WaitVisible(`#dead`, chromedp.ByQuery),
			checkPage("dead letters"),
			shot("dead"),
			clickThrough(fmt.Sprintf(`button[aria-label="Replay dead letter %s"]`, dls[len(dls)-1-i].ID)),
			chromedp.WaitVisible(`#flash`, chromedp.ByQuery),
			shot("dead-replayed"),
		)
		require.Contains(t, text(ctx, t, "#flash"), "Replayed "+dls[len(dls)-1-i].ID.String())
		_, err := b.stream("audit").DeadLetters().Get(b.ctx, dls[len(dls)-1-i].ID)
		require.Error(t, err, "the dead letter is gone")

		// Retry a dead job; pause and resume a lane.
		run(t, ctx, vp.name+": retry",
			chromedp.Navigate(q+"/lanes"),
			chromedp.WaitVisible(`#dead-jobs`, chromedp.ByQuery),
			checkPage("lanes"),
			clickThrough(`#dead-jobs button[aria-label^="Retry dead job"]`),
			chromedp.WaitVisible(`#flash`, chromedp.ByQuery),
		)
		require.Contains(t, text(ctx, t, "#flash"), "Retried dead job JOB")
		st, err := b.lanes.Stats(b.ctx)
		require.NoError(t, err)
		require.Equal(t, int64(len(viewports)-1-i), st.Dead)
		run(t, ctx, vp.name+": pause",
			chromedp.SendKeys(`#lane`, "PLR-bob", chromedp.ByQuery),
			clickThrough(`#lane-pause`),
		)
		require.Equal(t, "Paused lane PLR-bob.", text(ctx, t, "#flash"))
		run(t, ctx, vp.name+": shot", shot("lanes-paused"))
		require.Equal(t, "paused", text(ctx, t, `#lanes tr[data-lane="PLR-bob"] .lane-state`))
		li, err := b.lanes.Lane(b.ctx, "PLR-bob")
		require.NoError(t, err)
		require.True(t, li.Paused)
		run(t, ctx, vp.name+": resume", clickThrough(`#lanes tr[data-lane="PLR-bob"] button`))
		require.Equal(t, "Resumed lane PLR-bob.", text(ctx, t, "#flash"))
		require.NotEqual(t, "paused", text(ctx, t, `#lanes tr[data-lane="PLR-bob"] .lane-state`))
		li, err = b.lanes.Lane(b.ctx, "PLR-bob")
		require.NoError(t, err)
		require.False(t, li.Paused)

		// The session ends (its cookie is gone): the next write is refused
		// and nothing changes.
		run(t, ctx, vp.name+": refused without the token",
			clearCookies,
			clickThrough(`#queue-toggle`),
			chromedp.WaitVisible(`#error`, chromedp.ByQuery),
			shot("refused-signed-out"),
		)
		require.Equal(t, "sign in with the dashboard's token first", text(ctx, t, "#error"))
		st, err = b.lanes.Stats(b.ctx)
		require.NoError(t, err)
		require.False(t, st.Paused, "nothing was paused")

		// A read-only dashboard renders no write control, and a write posted
		// anyway (with a valid session and CSRF token) is refused.
		roq := ro.srv.URL + "/q/" + ro.queue
		var buttons int
		run(t, ctx, vp.name+": read-only",
			chromedp.Navigate(roq+"/lanes"),
			chromedp.WaitVisible(`#token`, chromedp.ByQuery),
			chromedp.SendKeys(`#token`, token, chromedp.ByQuery),
			clickThrough(`#signin`),
			chromedp.WaitVisible(`#lane-stats`, chromedp.ByQuery),
			count(`document.querySelectorAll("main form[method=post]").length`, &buttons),
			shot("read-only"),
			eval(`(() => { const f = document.createElement("form"); f.method = "post"; f.action = "lanes/pause";
				const c = document.createElement("input"); c.type = "hidden"; c.name = "csrf"; c.value = document.querySelector("input[name=csrf]").value;
				f.appendChild(c); document.body.appendChild(f); f.submit(); return true; })()`),
			chromedp.WaitVisible(`#error`, chromedp.ByQuery),
			shot("refused-read-only"),
		)
		require.Zero(t, buttons, "no write control")
		require.Equal(t, "the dashboard is read-only: writes are off", text(ctx, t, "#error"))
		rst, err := ro.lanes.Stats(ro.ctx)
		require.NoError(t, err)
		require.False(t, rst.Paused)
		run(t, ctx, vp.name+": console", console.none("the dashboard's pages"))
		cancel()
	}
}

// TestBrowserOutage: an engine killed under an open overview. The live
// updates say at once that the engine is unreachable; a page loaded during
// the outage is one notice that reloads itself; when the engine is back
// the page returns by itself, with no console error on the way.
func TestBrowserOutage(t *testing.T) {
	t.Parallel()
	exe := chromium()
	if exe == "" {
		t.Skip("no Chromium found (install it: make chromium, or apt-get install -y chromium; or set CHROMIUM=/path/to/browser)")
	}
	srv := echomqtest.StartPersistent(t)
	b := setupOn(t, srv.URL(), nil)
	b.appendN(t, "orders", 3)
	dir := artifacts(t)
	root := startChromium(t, exe)
	for _, vp := range viewports {
		ctx, cancel := context.WithTimeout(root, 90*time.Second)
		shot := shooter(dir, vp.name)
		console := &consoleErrors{}
		run(t, ctx, vp.name+": overview",
			console.listen(ctx),
			clearCookies,
			chromedp.EmulateViewport(vp.width, vp.height),
			chromedp.Navigate(b.srv.URL+"/"),
			chromedp.WaitVisible(`#token`, chromedp.ByQuery),
			chromedp.SendKeys(`#token`, token, chromedp.ByQuery),
			clickThrough(`#signin`),
			chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		)
		require.NoError(t, srv.Kill())
		run(t, ctx, vp.name+": outage under an open page",
			chromedp.WaitVisible(`#engine-state`, chromedp.ByQuery),
			shot("outage-live"),
			chromedp.Navigate(b.srv.URL+"/"),
			chromedp.WaitVisible(`#engine-down`, chromedp.ByQuery),
			checkPage("unreachable"),
			shot("outage-page"),
		)
		require.Contains(t, text(ctx, t, "#engine-down"), "cannot reach the engine")
		srv.Restart(t)
		run(t, ctx, vp.name+": back by itself",
			chromedp.WaitVisible(`main table`, chromedp.ByQuery), // the notice reloaded itself
			chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(20*time.Second)),
			chromedp.WaitNotVisible(`#engine-state`, chromedp.ByQuery),
			console.none("outage"),
		)
		cancel()
	}
}
