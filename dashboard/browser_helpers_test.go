package dashboard_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit/browsertest"
)

// shooter returns an action that writes a full-page screenshot to
// dir/dashboard-<pass>-<step>.png.
func shooter(dir, pass string) func(step string) chromedp.Action {
	return browsertest.Shooter(dir, "dashboard-", pass)
}

// newConsole collects what the pages of a tab report as errors: script
// exceptions, console errors and warnings and the browser's own error and
// warning entries (a Content-Security-Policy violation, an invalid
// pattern, a failed script), but not the "failed to load resource" line of
// a page answered with an error status on purpose.
func newConsole() *browsertest.Console {
	return &browsertest.Console{Warnings: true, SkipNetwork: true}
}

// checkPageJS lists what fails the dashboard's own basics on the page:
// headings that skip a level or not one h1, and content wider than the
// viewport (the tables scroll inside their own box instead). Names and
// labels are the shared audit's (browsertest.Audit).
const checkPageJS = `(() => {
  const bad = [];
  if (document.querySelectorAll("h1").length !== 1) bad.push("want one h1");
  let last = 0;
  for (const h of document.querySelectorAll("h1, h2, h3")) { const n = +h.tagName[1]; if (n > last + 1) bad.push("heading skips to " + h.tagName); last = n; }
  if (document.documentElement.scrollWidth > window.innerWidth + 1) bad.push("page wider than the viewport: " + document.documentElement.scrollWidth + " > " + window.innerWidth);
  return bad;
})()`

// checkPage fails listing every offence checkPageJS finds on the page,
// then runs the checks both web suites share: the accessibility audit
// (browsertest.Audit: every control named and reachable by keyboard, no
// click or key handler on anything else) and the text's contrast in the
// colour scheme shown (browsertest.Contrast).
func checkPage(page string) chromedp.Action {
	return chromedp.Tasks{basics(page), browsertest.Audit(page), browsertest.Contrast(page)}
}

// basics fails listing every offence checkPageJS finds on the page.
func basics(page string) chromedp.Action {
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
			time.Sleep(50 * time.Millisecond) // sleep: the pace of looking at a page mid-navigation (no event outlives the old document)
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
