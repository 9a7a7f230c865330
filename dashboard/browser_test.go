package dashboard_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/webkit/browsertest"
)

// TestBrowser drives a real browser through the dashboard at desktop and
// phone widths: sign in, see the overview update live, browse a stream's
// time window across the archive seam, replay a dead letter, retry a dead
// job, pause and resume a lane; then see a write refused once the session
// is gone, and on a read-only dashboard.
func TestBrowser(t *testing.T) {
	t.Parallel()
	exe := browsertest.Need(t)
	b := setup(t, nil)
	ids, w := b.archived(t, 7, 3)
	dls := b.deadLetters(t, "audit", len(browsertest.Viewports))
	for range browsertest.Viewports {
		b.deadJob(t, "PLR-ada")
	}
	for range 2 {
		_, err := b.lanes.Enqueue(b.ctx, "PLR-bob", []byte("{}"), nil)
		require.NoError(t, err)
	}
	ro := setup(t, func(c *dashboard.Config) { c.ReadOnly = true })
	dir := browsertest.Artifacts(t, "echomq-dashboard-")
	t.Logf("screenshots in %s", dir)
	root := browsertest.Start(t, exe)

	for i, vp := range browsertest.Viewports {
		ctx, cancel := context.WithTimeout(root, 60*time.Second)
		shot := shooter(dir, vp.Name)
		q := b.srv.URL + "/q/" + b.queue
		console := newConsole()
		run(t, ctx, vp.Name+": listen", console.Listen(ctx))

		// Sign in; the overview's numbers arrive live.
		run(t, ctx, vp.Name+": sign in",
			clearCookies,
			vp.Emulate(),
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
			run(t, ctx, vp.Name+": "+pg.name,
				chromedp.Navigate(b.srv.URL+pg.path),
				chromedp.WaitVisible(pg.sel, chromedp.ByQuery),
				checkPage(pg.name),
				shot(pg.name),
			)
		}

		// The stream's first page: four archived events, the seam, a live
		// one; the next page is live.
		var archived, live, seams int
		run(t, ctx, vp.Name+": stream",
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
		run(t, ctx, vp.Name+": next page",
			clickThrough(`#next`),
			chromedp.WaitVisible(`#prev`, chromedp.ByQuery),
			count(`document.querySelectorAll("#events tr.livetail").length`, &live),
			count(`document.querySelectorAll("#events tr.archived").length`, &archived),
		)
		require.Equal(t, []int{0, 2}, []int{archived, live})
		// A time window that starts in the archive and ends in the live tail.
		run(t, ctx, vp.Name+": window",
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
		run(t, ctx, vp.Name+": replay",
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
		run(t, ctx, vp.Name+": retry",
			chromedp.Navigate(q+"/lanes"),
			chromedp.WaitVisible(`#dead-jobs`, chromedp.ByQuery),
			checkPage("lanes"),
			clickThrough(`#dead-jobs button[aria-label^="Retry dead job"]`),
			chromedp.WaitVisible(`#flash`, chromedp.ByQuery),
		)
		require.Contains(t, text(ctx, t, "#flash"), "Retried dead job JOB")
		st, err := b.lanes.Stats(b.ctx)
		require.NoError(t, err)
		require.Equal(t, int64(len(browsertest.Viewports)-1-i), st.Dead)
		run(t, ctx, vp.Name+": pause",
			chromedp.SendKeys(`#lane`, "PLR-bob", chromedp.ByQuery),
			clickThrough(`#lane-pause`),
		)
		require.Equal(t, "Paused lane PLR-bob.", text(ctx, t, "#flash"))
		run(t, ctx, vp.Name+": shot", shot("lanes-paused"))
		require.Equal(t, "paused", text(ctx, t, `#lanes tr[data-lane="PLR-bob"] .lane-state`))
		li, err := b.lanes.Lane(b.ctx, "PLR-bob")
		require.NoError(t, err)
		require.True(t, li.Paused)
		run(t, ctx, vp.Name+": resume", clickThrough(`#lanes tr[data-lane="PLR-bob"] button`))
		require.Equal(t, "Resumed lane PLR-bob.", text(ctx, t, "#flash"))
		require.NotEqual(t, "paused", text(ctx, t, `#lanes tr[data-lane="PLR-bob"] .lane-state`))
		li, err = b.lanes.Lane(b.ctx, "PLR-bob")
		require.NoError(t, err)
		require.False(t, li.Paused)

		// The session ends (its cookie is gone): the next write is refused
		// and nothing changes.
		run(t, ctx, vp.Name+": refused without the token",
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
		run(t, ctx, vp.Name+": read-only",
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
		run(t, ctx, vp.Name+": console", console.None("the dashboard's pages"))
		cancel()
	}
}

// TestBrowserOutage: an engine killed under an open overview. The live
// updates say at once that the engine is unreachable; a page loaded during
// the outage is one notice that reloads itself; when the engine is back
// the page returns by itself, with no console error on the way.
func TestBrowserOutage(t *testing.T) {
	t.Parallel()
	exe := browsertest.Need(t)
	srv := echomqtest.StartPersistent(t)
	b := setupOn(t, srv.URL(), nil)
	b.appendN(t, "orders", 3)
	dir := browsertest.Artifacts(t, "echomq-dashboard-")
	root := browsertest.Start(t, exe)
	for _, vp := range browsertest.Viewports {
		ctx, cancel := context.WithTimeout(root, 90*time.Second)
		shot := shooter(dir, vp.Name)
		console := newConsole()
		run(t, ctx, vp.Name+": overview",
			console.Listen(ctx),
			clearCookies,
			vp.Emulate(),
			chromedp.Navigate(b.srv.URL+"/"),
			chromedp.WaitVisible(`#token`, chromedp.ByQuery),
			chromedp.SendKeys(`#token`, token, chromedp.ByQuery),
			clickThrough(`#signin`),
			chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		)
		require.NoError(t, srv.Kill())
		run(t, ctx, vp.Name+": outage under an open page",
			chromedp.WaitVisible(`#engine-state`, chromedp.ByQuery),
			shot("outage-live"),
			chromedp.Navigate(b.srv.URL+"/"),
			chromedp.WaitVisible(`#engine-down`, chromedp.ByQuery),
			checkPage("unreachable"),
			shot("outage-page"),
		)
		require.Contains(t, text(ctx, t, "#engine-down"), "cannot reach the engine")
		srv.Restart(t)
		run(t, ctx, vp.Name+": back by itself",
			chromedp.WaitVisible(`main table`, chromedp.ByQuery), // the notice reloaded itself
			chromedp.Poll(`document.body.dataset.live === "open"`, nil, chromedp.WithPollingTimeout(20*time.Second)),
			chromedp.WaitNotVisible(`#engine-state`, chromedp.ByQuery),
			console.None("outage"),
		)
		cancel()
	}
}
