package browsertest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit/browsertest"
)

// page is a clean page with one named control: the audit passes it.
const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head>
<body><main id="main"><h1>Page</h1><button id="ok">Go</button></main></body></html>`

func serve(t *testing.T) (string, context.Context) {
	t.Helper()
	exe := browsertest.Need(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(browsertest.Start(t, exe), 30*time.Second)
	t.Cleanup(cancel)
	return srv.URL, ctx
}

// TestAudit: a clean page passes; one offender of each kind planted on it
// is named, so a passing audit means something.
func TestAudit(t *testing.T) {
	t.Parallel()
	url, ctx := serve(t)
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(url), chromedp.WaitVisible(`#ok`, chromedp.ByQuery), browsertest.Audit("clean")))
	err := chromedp.Run(ctx,
		chromedp.Evaluate(`(() => {
  const main = document.getElementById("main");
  const add = (html) => main.insertAdjacentHTML("beforeend", html);
  add('<div id="bad-onclick">pick</div>'); document.getElementById("bad-onclick").onclick = () => {};
  add('<span id="bad-listener">pick</span>'); document.getElementById("bad-listener").addEventListener("keydown", () => {});
  add('<button id="bad-noname"></button>');
  add('<button id="bad-disabled" disabled>Go</button>');
  add('<a id="bad-nohref">more</a>');
  add('<input id="bad-nolabel">');
  add('<span id="bad-img" role="img"></span>');
  add('<button id="bad-order" tabindex="3">Jump</button>');
})()`, nil),
		browsertest.Audit("planted"),
	)
	require.Error(t, err, "the audit lets planted offenders pass")
	lines := strings.Split(err.Error(), "\n")
	for _, want := range [][2]string{
		{`div#bad-onclick "pick"`, "onclick on an element that is not a control"},
		{`div#bad-onclick`, "click listener"},
		{`span#bad-listener`, "keydown listener"},
		{`button#bad-noname ""`, "no accessible name"},
		{`button#bad-disabled "Go"`, "disabled (use aria-disabled)"},
		{`a#bad-nohref "more"`, "not focusable"},
		{`input#bad-nolabel ""`, "no accessible name"},
		{`span#bad-img ""`, "image without a name"},
		{`button#bad-order "Jump"`, "positive tabindex"},
	} {
		require.True(t, slices.ContainsFunc(lines, func(l string) bool {
			return strings.Contains(l, want[0]) && strings.Contains(l, want[1])
		}), "the audit misses %s (%s):\n%s", want[0], want[1], err)
	}
	require.NotContains(t, err.Error(), "button#ok")
}

// TestConsole: an invalid pattern attribute (the browser's own error
// entry), a console.error and an exception are caught; warnings only when
// asked for; Take clears and leaves out what is expected.
func TestConsole(t *testing.T) {
	t.Parallel()
	url, ctx := serve(t)
	c := &browsertest.Console{}
	require.NoError(t, chromedp.Run(ctx, c.Listen(ctx), chromedp.Navigate(url), chromedp.WaitVisible(`#ok`, chromedp.ByQuery)))
	require.NoError(t, chromedp.Run(ctx, c.None("clean page")))
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Evaluate(`(() => { const i = document.createElement("input"); i.pattern = "[A-Za-z0-9._-]+"; i.value = "x"; document.body.append(i); return i.checkValidity(); })()`, nil),
		chromedp.Evaluate(`console.error("boom"); console.warn("careful"); setTimeout(() => { throw new Error("thrown") }, 0); true`, nil),
	))
	has := func(errs []string, s string) bool {
		return slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, s) })
	}
	require.Eventually(t, func() bool {
		seen := c.Seen()
		return has(seen, "Pattern attribute value") && has(seen, "boom") && has(seen, "thrown")
	}, 10*time.Second, 50*time.Millisecond, "the watch misses an error: %q", c.Seen())
	errs := c.Take("boom")
	require.False(t, has(errs, "boom"), "expected texts are left out")
	require.False(t, has(errs, "careful"), "no warnings unless asked for")
	require.Empty(t, c.Take(), "Take clears")
	require.Error(t, chromedp.Run(ctx, chromedp.Evaluate(`console.error("again"); true`, nil), chromedp.Poll(`true`, nil), waitFor(c, "again"), c.None("dirty page")))
}

// waitFor waits until c has seen text.
func waitFor(c *browsertest.Console, text string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for !slices.ContainsFunc(c.Seen(), func(e string) bool { return strings.Contains(e, text) }) {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
		return nil
	})
}

// TestContrast: the clean page passes in both schemes; text planted under
// 4.5:1 fails, named, and large text needs 3:1 only.
func TestContrast(t *testing.T) {
	t.Parallel()
	url, ctx := serve(t)
	for _, scheme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Run(ctx, browsertest.Scheme(scheme), chromedp.Navigate(url), chromedp.WaitVisible(`#ok`, chromedp.ByQuery),
			browsertest.Contrast("clean "+scheme)), scheme)
	}
	err := chromedp.Run(ctx,
		chromedp.Evaluate(`(() => {
  const main = document.getElementById("main");
  main.style.background = "#fff";
  main.insertAdjacentHTML("beforeend", '<p id="faint" style="color:#999">faint</p>' +
    '<p id="large" style="color:#888; font-size:24px">large</p>' +
    '<p id="on-dark" style="color:#333; background:#000">dark</p>' +
    '<p id="hidden" class="vh" style="color:#eee">for screen readers</p>');
})()`, nil),
		browsertest.Contrast("planted"),
	)
	require.Error(t, err, "low contrast passes")
	require.Contains(t, err.Error(), `p#faint "faint": 2.85 < 4.5`)
	require.Contains(t, err.Error(), `p#on-dark "dark"`)
	require.NotContains(t, err.Error(), "p#large", "3.54:1 is enough for 24px text")
	require.NotContains(t, err.Error(), "p#hidden")
	require.NotContains(t, err.Error(), "button#ok")
}
