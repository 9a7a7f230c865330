package browsertest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Console collects what a tab reports as an error: uncaught exceptions,
// console.error (and console.assert) calls and the browser's own error
// entries (a Content-Security-Policy violation, an invalid pattern
// attribute, a script that failed to load).
type Console struct {
	// Warnings counts console warnings and the browser's warning entries
	// as errors too.
	Warnings bool
	// SkipNetwork leaves out the browser's network entries: the "failed to
	// load resource" line of a page answered with an error status on
	// purpose.
	SkipNetwork bool

	mu   sync.Mutex
	errs []string
}

// Listen starts collecting in the tab of ctx; run the action it returns
// in that tab (it turns the browser's log on).
func (c *Console) Listen(ctx context.Context) chromedp.Action {
	chromedp.ListenTarget(ctx, func(ev any) {
		if msg := c.message(ev); msg != "" {
			c.mu.Lock()
			c.errs = append(c.errs, msg)
			c.mu.Unlock()
		}
	})
	return cdplog.Enable()
}

func (c *Console) message(ev any) string {
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type != runtime.APITypeError && e.Type != runtime.APITypeAssert && (!c.Warnings || e.Type != runtime.APITypeWarning) {
			return ""
		}
		var parts []string
		for _, a := range e.Args {
			parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
		}
		return "console." + string(e.Type) + ": " + strings.Join(parts, " ")
	case *runtime.EventExceptionThrown:
		msg := "exception: " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			msg += " " + e.ExceptionDetails.Exception.Description
		}
		return msg
	case *cdplog.EventEntryAdded:
		if e.Entry.Level != cdplog.LevelError && (!c.Warnings || e.Entry.Level != cdplog.LevelWarning) {
			return ""
		}
		if c.SkipNetwork && e.Entry.Source == cdplog.SourceNetwork {
			return ""
		}
		return string(e.Entry.Source) + ": " + e.Entry.Text + " (" + e.Entry.URL + ")"
	}
	return ""
}

// Seen returns the errors seen since the last Take, leaving them there.
func (c *Console) Seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.errs)
}

// Take returns the errors seen since the last Take, leaving out those
// that contain one of the expected texts.
func (c *Console) Take(expected ...string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.errs {
		if !slices.ContainsFunc(expected, func(x string) bool { return x != "" && strings.Contains(e, x) }) {
			out = append(out, e)
		}
	}
	c.errs = nil
	return out
}

// None is an action that fails, listing them, if errors were seen since
// the last Take (what names the pages, for the message).
func (c *Console) None(what string) chromedp.Action {
	return chromedp.ActionFunc(func(context.Context) error {
		if errs := c.Take(); len(errs) > 0 {
			return fmt.Errorf("%s: console errors: %s", what, strings.Join(errs, "; "))
		}
		return nil
	})
}
