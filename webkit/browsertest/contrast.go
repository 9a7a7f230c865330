package browsertest

import (
	"context"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// contrastJS lists the text of the page whose colour does not stand out
// from its background: under 4.5:1, or 3:1 for large text (24px, or 18.66px
// bold). The background is that of the nearest element that paints one
// (white when none does); text under a background image, in a
// translucent element or in a disabled control is not measured.
const contrastJS = `(() => {
  const rgb = (s) => { const m = s.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const bg = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.backgroundImage !== "none") return null;
      if (parseFloat(s.opacity) < 1) return null;
      const c = rgb(s.backgroundColor);
      if (c && c.a === 1) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 }; // the canvas of a page that paints none
  };
  const bad = [];
  for (const el of document.querySelectorAll("body *")) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    if (!el.getClientRects().length || el.closest("[disabled], [aria-disabled=true], .vh, .skip")) continue;
    const s = getComputedStyle(el);
    if (s.visibility === "hidden") continue;
    const fg = rgb(s.color), back = bg(el);
    if (!fg || !back || fg.a < 1) continue;
    const size = parseFloat(s.fontSize), bold = parseInt(s.fontWeight, 10) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    const r = ratio(fg, back);
    if (r < need) bad.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "") + " " + JSON.stringify(el.textContent.trim().slice(0, 24)) + ": " + r.toFixed(2) + " < " + need);
  }
  return bad;
})()`

// Contrast fails listing the text of the page that does not stand out
// from its background (see contrastJS), in the colour scheme the page is
// shown in now.
func Contrast(page string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var bad []string
		if err := chromedp.Evaluate(contrastJS, &bad).Do(ctx); err != nil {
			return fmt.Errorf("contrast of %s: %w", page, err)
		}
		if len(bad) > 0 {
			return fmt.Errorf("contrast of the %s page: %d offenders:\n  %s", page, len(bad), strings.Join(bad, "\n  "))
		}
		return nil
	})
}

// Scheme shows the pages of the tab in a colour scheme: "light" or "dark"
// (what prefers-color-scheme says), "" for the browser's own.
func Scheme(scheme string) chromedp.Action {
	var features []*emulation.MediaFeature
	if scheme != "" {
		features = append(features, &emulation.MediaFeature{Name: "prefers-color-scheme", Value: scheme})
	}
	return emulation.SetEmulatedMedia().WithFeatures(features)
}
