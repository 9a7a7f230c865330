// Package browsertest holds the browser-test helpers of EchoMQ's own web
// modules (the dashboard and codemojex's pages): finding and starting a
// headless Chromium, the viewports every pass runs at, screenshots, and
// collecting what a page reports as an error. It is for their test suites
// only, not a user API.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Viewport is a browser window a pass runs in: its size and colour
// scheme.
type Viewport struct {
	Name          string
	Width, Height int64
	// Scheme is the colour scheme the pages are shown in ([Scheme]).
	Scheme string
}

// Viewports are the windows every browser pass runs in: a desktop in the
// light scheme and a phone in the dark one, so both schemes are checked
// without a third pass.
var Viewports = []Viewport{
	{"desktop", 1280, 900, "light"},
	{"phone", 390, 844, "dark"},
}

// Emulate shows the tab as v: its size and colour scheme.
func (v Viewport) Emulate() chromedp.Action {
	return chromedp.Tasks{chromedp.EmulateViewport(v.Width, v.Height), Scheme(v.Scheme)}
}

// Find returns the path of a Chromium or Chrome, or "" when the machine
// has none. CHROMIUM names one explicitly.
func Find() string {
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

// Need returns the browser's path, or skips the test, saying how to get
// one, when the machine has none.
func Need(t testing.TB) string {
	t.Helper()
	exe := Find()
	if exe == "" {
		t.Skip("no Chromium found (install it: make chromium, or apt-get install -y chromium; or set CHROMIUM=/path/to/browser)")
	}
	return exe
}

// Start starts a headless browser (exe) on a fresh profile and returns
// the context of its first tab; the test's cleanup stops it and removes
// the profile.
func Start(t testing.TB, exe string) context.Context {
	t.Helper()
	// A fresh profile, removed by hand: the browser's helper processes may
	// still write to it a moment after the browser exits, which
	// t.TempDir's strict cleanup would report as a failure.
	profile, err := os.MkdirTemp("", "echomq-chromium-")
	if err != nil {
		t.Fatalf("browser profile: %v", err)
	}
	t.Cleanup(func() {
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond) // the helper processes' last writes
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
	if err := chromedp.Run(root); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return root
}

// Artifacts returns the directory screenshots go to: WEB_ARTIFACTS when
// set, else a fresh temporary directory named after prefix that outlives
// the test, so the images can be looked at.
func Artifacts(t testing.TB, prefix string) string {
	t.Helper()
	dir := os.Getenv("WEB_ARTIFACTS")
	if dir == "" {
		d, err := os.MkdirTemp("", prefix)
		if err != nil {
			t.Fatalf("artifacts: %v", err)
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil { //nolint:gosec // G703: WEB_ARTIFACTS is the tester's own choice of directory
		t.Fatalf("artifacts: %v", err)
	}
	return dir
}

// Shooter returns an action maker that writes a full-page screenshot of
// step to dir/<prefix><pass>-<step>.png.
func Shooter(dir, prefix, pass string) func(step string) chromedp.Action {
	return func(step string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var b []byte
			if err := chromedp.FullScreenshot(&b, 100).Do(ctx); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s%s-%s.png", prefix, pass, step)), b, 0o644)
		})
	}
}
