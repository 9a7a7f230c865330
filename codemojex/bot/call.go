package bot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"golang.org/x/time/rate"
)

// APIError is a Bot API call that failed: the method, the HTTP status
// Telegram answered (0 when no answer came), the retry_after it asked for
// on a 429, and the library's error.
type APIError struct {
	Method     string
	Status     int
	RetryAfter time.Duration
	Err        error
}

// Error names the method and the cause.
func (e *APIError) Error() string {
	if e.Status == 0 {
		return "bot: " + e.Method + ": " + e.Err.Error()
	}
	return fmt.Sprintf("bot: %s: status %d: %v", e.Method, e.Status, e.Err)
}

// Unwrap returns the library's error.
func (e *APIError) Unwrap() error { return e.Err }

// Temporary reports whether the call may succeed when retried: a 429, a
// 5xx, or no answer at all because of a network failure.
func (e *APIError) Temporary() bool {
	var ne net.Error
	return e.Status == http.StatusTooManyRequests || e.Status >= 500 || e.Status == 0 && errors.As(e.Err, &ne)
}

// statusKey carries, in a request's context, where the HTTP status of the
// Bot API's answer is to be written: the library reports 5xx answers only
// as text, and the retry policy needs the number.
type statusKey struct{}

// statusClient is the HTTP client given to the library; it records each
// answer's status for the call that asked for it.
type statusClient struct{ c *http.Client }

func (s statusClient) Do(r *http.Request) (*http.Response, error) {
	resp, err := s.c.Do(r) //nolint:gosec // G704: the Bot API server is the operator's configuration
	if p, ok := r.Context().Value(statusKey{}).(*int); ok && resp != nil {
		*p = resp.StatusCode
	}
	return resp, err
}

// limits holds the outbound rate limits: one for all calls, one per chat.
// Per-chat limiters idle for a minute are dropped, so the map stays the
// size of the chats active lately.
type limits struct {
	global *rate.Limiter
	every  rate.Limit
	burst  int

	mu    sync.Mutex
	chats map[int64]*chatLimit
	swept time.Time
}

type chatLimit struct {
	l    *rate.Limiter
	used time.Time
}

func newLimits(global float64, chat float64, burst int) *limits {
	return &limits{
		global: rate.NewLimiter(rate.Limit(global), max(1, int(global))), every: rate.Limit(chat), burst: burst,
		chats: map[int64]*chatLimit{}, swept: time.Now(),
	}
}

// wait blocks until a call to chat (0: no chat) may go out.
func (l *limits) wait(ctx context.Context, chat int64) error {
	if err := l.global.Wait(ctx); err != nil {
		return err
	}
	if chat == 0 {
		return nil
	}
	now := time.Now()
	l.mu.Lock()
	if now.Sub(l.swept) > time.Minute {
		for id, c := range l.chats {
			if now.Sub(c.used) > time.Minute {
				delete(l.chats, id)
			}
		}
		l.swept = now
	}
	c := l.chats[chat]
	if c == nil {
		c = &chatLimit{l: rate.NewLimiter(l.every, l.burst)}
		l.chats[chat] = c
	}
	c.used = now
	l.mu.Unlock()
	return c.l.Wait(ctx)
}

// once makes one Bot API call to chat after the rate limits let it out,
// and returns its failure as an [*APIError].
func (b *Bot) once(ctx context.Context, chat int64, method string, fn func(context.Context) error) error {
	if err := b.lim.wait(ctx, chat); err != nil {
		return err
	}
	var status int
	err := fn(context.WithValue(ctx, statusKey{}, &status))
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	ae := &APIError{Method: method, Status: status, Err: err}
	if tm, ok := errors.AsType[*tgbot.TooManyRequestsError](err); ok {
		ae.Status, ae.RetryAfter = http.StatusTooManyRequests, time.Duration(tm.RetryAfter)*time.Second
	}
	return ae
}

// call makes a Bot API call, retrying a temporary failure up to
// Config.Retries times: after retry_after on a 429, else after a backoff
// doubling from Config.Backoff. It is for the answers a user waits for
// (callback answers, keyboard edits); messages go through the outbox.
func (b *Bot) call(ctx context.Context, chat int64, method string, fn func(context.Context) error) error {
	for attempt := 0; ; attempt++ {
		err := b.once(ctx, chat, method, fn)
		var ae *APIError
		if err == nil || !errors.As(err, &ae) || !ae.Temporary() || attempt >= b.cfg.Retries {
			return err
		}
		wait := min(b.cfg.Backoff<<attempt, b.cfg.MaxBackoff)
		if ae.RetryAfter > 0 {
			wait = ae.RetryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// notModified reports Telegram's refusal of an edit that changes nothing,
// which for an idempotent edit is success.
func notModified(err error) bool {
	return errors.Is(err, tgbot.ErrorBadRequest) && strings.Contains(err.Error(), "message is not modified")
}
