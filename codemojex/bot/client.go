package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// client speaks the Bot API: JSON POSTs to {server}/bot{token}/{method}.
type client struct {
	base    string
	http    *http.Client
	global  *rate.Limiter
	perChat rate.Limit
	burst   int
	retries int
	backoff time.Duration

	mu    sync.Mutex
	chats map[int64]*rate.Limiter
}

type reply struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	Description string          `json:"description"`
	Parameters  *struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

func (c *client) chat(id int64) *rate.Limiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.chats[id]
	if l == nil {
		l = rate.NewLimiter(c.perChat, c.burst)
		c.chats[id] = l
	}
	return l
}

// call invokes method, waiting for the rate limits (chat 0 skips the
// per-chat one) and retrying 429 and 5xx answers; out, if not nil,
// receives the result.
func (c *client) call(ctx context.Context, chat int64, method string, params, out any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("bot: %s: %w", method, err)
	}
	for attempt := 0; ; attempt++ {
		if err := c.global.Wait(ctx); err != nil {
			return err
		}
		if chat != 0 {
			if err := c.chat(chat).Wait(ctx); err != nil {
				return err
			}
		}
		err := c.once(ctx, method, body, out)
		var ae *APIError
		if err == nil || !errors.As(err, &ae) || !ae.retryable() || attempt >= c.retries {
			return err
		}
		wait := c.backoff << attempt
		if ae.RetryAfter > 0 {
			wait = time.Duration(ae.RetryAfter) * time.Second
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

func (c *client) once(ctx context.Context, method string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/"+method, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("bot: %s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("bot: %s: %w", method, err)
	}
	defer resp.Body.Close()
	var r reply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || !r.OK {
		ae := &APIError{Method: method, Status: resp.StatusCode, Description: r.Description}
		if err != nil {
			ae.Description = "undecodable answer: " + err.Error()
		}
		if r.Parameters != nil {
			ae.RetryAfter = r.Parameters.RetryAfter
		}
		if ae.Status < 400 {
			ae.Status = http.StatusBadGateway
		}
		return ae
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			return fmt.Errorf("bot: %s result: %w", method, err)
		}
	}
	return nil
}
