package browsertest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// controls are the elements a person operates, and so must reach by
// keyboard and hear named.
const controls = `button, a, input, select, textarea, [role=button], [role=link], [onclick], [tabindex]:not([tabindex="-1"])`

// auditJS lists the controls of the page that fail the basics: no
// accessible name, not focusable while shown (it focuses each in turn and
// puts the focus back), disabled (the page uses
// aria-disabled, which keeps a control in the tab order), a positive
// tabindex (it reorders the page); images without a name; and handlers set
// as properties on elements that are not controls. The name follows the
// order of the accessible-name computation, simplified: aria-labelledby,
// aria-label, the associated labels, alt, the text, title.
const auditJS = `(() => {
  const CONTROLS = %q;
  const text = (el) => (el.innerText || el.textContent || "").trim();
  const byIDs = (ids) => ids.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map(text).join(" ").trim();
  const name = (el) => {
    const lb = el.getAttribute("aria-labelledby");
    if (lb && byIDs(lb)) return byIDs(lb);
    const al = (el.getAttribute("aria-label") || "").trim();
    if (al) return al;
    if (el.labels && el.labels.length) { const t = [...el.labels].map(text).join(" ").trim(); if (t) return t; }
    if (el.tagName === "IMG") return (el.getAttribute("alt") || "").trim();
    const t = text(el) || [...el.querySelectorAll("img[alt]")].map((i) => i.alt).join(" ").trim();
    return t || (el.getAttribute("title") || "").trim();
  };
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const who = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "") + " " + JSON.stringify(text(el).slice(0, 24));
  // Tab reaches an element that takes the focus and has a tabIndex of 0
  // or more (an <a> without href reports 0 yet takes no focus).
  const was = document.activeElement;
  const focusable = (el) => { el.focus({ preventScroll: true }); return el.tabIndex >= 0 && document.activeElement === el; };
  const bad = [];
  const all = [...document.querySelectorAll(CONTROLS)].filter((el) => el.type !== "hidden");
  for (const el of all) {
    const why = [];
    if (!name(el)) why.push("no accessible name");
    if (shown(el) && !focusable(el)) why.push("not focusable (tabIndex " + el.tabIndex + ")");
    if (el.disabled) why.push("disabled (use aria-disabled)");
    if (el.tabIndex > 0) why.push("positive tabindex");
    if (why.length) bad.push(who(el) + ": " + why.join(", "));
  }
  if (was && was !== document.body) was.focus({ preventScroll: true }); else document.activeElement.blur();
  for (const el of document.querySelectorAll("img, [role=img]")) if (!name(el)) bad.push(who(el) + ": image without a name");
  for (const el of document.querySelectorAll("body *")) {
    if (el.matches(CONTROLS)) continue;
    for (const h of ["onclick", "onmousedown", "onmouseup", "onpointerdown", "onpointerup", "onkeydown", "onkeyup", "onkeypress", "ontouchstart", "ontouchend"])
      if (typeof el[h] === "function") bad.push(who(el) + ": " + h + " on an element that is not a control");
  }
  return { controls: all.length, bad };
})()`

// interactive are the event types a handler on a non-control must not
// listen to: a mouse or a finger can reach it, a keyboard cannot.
var interactive = map[string]bool{
	"click": true, "dblclick": true, "mousedown": true, "mouseup": true, "pointerdown": true, "pointerup": true,
	"keydown": true, "keyup": true, "keypress": true, "touchstart": true, "touchend": true,
}

// Audit checks the current page (see auditJS), and, through the
// debugger, that no element but a control has a click or key listener
// added with addEventListener, which the page's script cannot see. It
// fails listing every offender. A page with no control at all fails too:
// the audit would prove nothing.
func Audit(page string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var res struct {
			Controls int      `json:"controls"`
			Bad      []string `json:"bad"`
		}
		if err := chromedp.Evaluate(fmt.Sprintf(auditJS, controls), &res).Do(ctx); err != nil {
			return fmt.Errorf("audit %s: %w", page, err)
		}
		more, err := listeners(ctx)
		if err != nil {
			return fmt.Errorf("audit %s: %w", page, err)
		}
		res.Bad = append(res.Bad, more...)
		if res.Controls == 0 {
			return fmt.Errorf("audit %s: no controls found", page)
		}
		if len(res.Bad) > 0 {
			return fmt.Errorf("accessibility audit of the %s page: %d offenders:\n  %s", page, len(res.Bad), strings.Join(res.Bad, "\n  "))
		}
		return nil
	})
}

// listeners names the elements that are not controls yet listen to
// clicks or keys.
func listeners(ctx context.Context) ([]string, error) {
	const group = "a11y-audit"
	defer func() { _ = runtime.ReleaseObjectGroup(group).Do(ctx) }()
	list, exc, err := runtime.Evaluate(fmt.Sprintf(`[...document.querySelectorAll("body *")].filter((el) => !el.matches(%q))`, controls)).WithObjectGroup(group).Do(ctx)
	if err != nil {
		return nil, err
	}
	if exc != nil {
		return nil, errors.New(exc.Text)
	}
	props, _, _, exc, err := runtime.GetProperties(list.ObjectID).WithOwnProperties(true).Do(ctx)
	if err != nil {
		return nil, err
	}
	if exc != nil {
		return nil, errors.New(exc.Text)
	}
	var bad []string
	for _, p := range props {
		if p.Value == nil || p.Value.Subtype != runtime.SubtypeNode {
			continue
		}
		ls, err := domdebugger.GetEventListeners(p.Value.ObjectID).Do(ctx)
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			if interactive[l.Type] {
				bad = append(bad, fmt.Sprintf("%s: %s listener on an element that is not a control", p.Value.Description, l.Type))
			}
		}
	}
	return bad, nil
}
