package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit/browsertest"
)

// watchConsole collects what the tab of ctx reports as an error:
// console.error calls, uncaught exceptions and the browser's own error
// entries (an invalid pattern attribute, a resource that failed to load).
func watchConsole(ctx context.Context) (*browsertest.Console, error) {
	c := &browsertest.Console{}
	return c, chromedp.Run(ctx, c.Listen(ctx))
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
	errors *browsertest.Console
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
	require.Empty(p.t, p.errors.Take(expected...), "%s: %s: console errors", p.name, page)
	require.False(p.t, l.Overflow, "%s: %s scrolls sideways: %v", p.name, page, l.Wide)
	require.Empty(p.t, l.Clipped, "%s: %s: tables clipped in their box", p.name, page)
	require.False(p.t, l.Lost, "%s: %s prints undefined or NaN", p.name, page)
	if p.phone {
		require.LessOrEqual(p.t, l.Header, l.Height/4, "%s: %s: the header takes %dpx of %dpx", p.name, page, l.Header, l.Height)
		require.Empty(p.t, l.Nested, "%s: %s: boxes that scroll inside the page", p.name, page)
	}
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

// audit checks the current page with the checks both web suites share:
// the accessibility audit (browsertest.Audit: every control named and
// reachable by keyboard, no click or key handler on anything else) and
// the text's contrast in the colour scheme shown (browsertest.Contrast).
func audit(page string) chromedp.Action {
	return chromedp.Tasks{browsertest.Audit(page), browsertest.Contrast(page)}
}
