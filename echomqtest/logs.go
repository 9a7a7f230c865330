package echomqtest

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// Logs keeps the messages of every record logged to it, for tests that
// check what a component said: that it logged an outage once and its end
// once, or why it stopped. Use [Logs.Logger] as the component's logger.
// Its methods are safe for concurrent use.
type Logs struct {
	mu   sync.Mutex
	msgs []string
}

// Logger returns a logger writing to l.
func (l *Logs) Logger() *slog.Logger { return slog.New(l) }

// Count returns how many messages end with suffix.
func (l *Logs) Count(suffix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if strings.HasSuffix(m, suffix) {
			n++
		}
	}
	return n
}

// Messages returns a copy of the messages so far, in order.
func (l *Logs) Messages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// Enabled reports true: every level is kept.
func (l *Logs) Enabled(context.Context, slog.Level) bool { return true }

// Handle keeps r's message.
func (l *Logs) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}

// WithAttrs returns l: attributes are not kept.
func (l *Logs) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup returns l: groups are not kept.
func (l *Logs) WithGroup(string) slog.Handler { return l }
