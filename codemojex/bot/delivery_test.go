package bot_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/bot"
)

// TestRetryAfter: a sendMessage answered 429 (retry_after 1) and then 502
// is retried until delivered, and the update's reply still arrives.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.api.failNext("sendMessage", http.StatusTooManyRequests, http.StatusBadGateway)
	h.text(301, "/help")
	sends := h.api.recorded("sendMessage")
	require.Len(t, sends, 3, "429, 502, then delivered")
	require.Contains(t, h.last("sendMessage", 301).Params["text"], "/rooms")
}

// TestRetriesExhausted: a method failing with 5xx past the retries gives
// up with the *APIError; a 4xx is not retried.
func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.api.failNext("sendMessage", http.StatusBadRequest)
	h.text(302, "/help")
	require.Len(t, h.api.recorded("sendMessage"), 1, "4xx not retried")
}

// TestPolling: Run feeds getUpdates' updates to the handlers in order and
// returns nil once its context is cancelled.
func TestPolling(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() { runErr = h.bot.Run(ctx) })
	h.api.push(bot.Update{UpdateID: 10, Message: &bot.Message{MessageID: 1, Chat: bot.Chat{ID: 401}, From: &bot.User{ID: 401, FirstName: "ann"}, Text: "/start"}})
	h.api.push(bot.Update{UpdateID: 11, Message: &bot.Message{MessageID: 2, Chat: bot.Chat{ID: 401}, From: &bot.User{ID: 401, FirstName: "ann"}, Text: "/rooms"}})
	h.api.waitCalls(t, "sendMessage", 2)
	h.api.waitPoll(t, 12)
	cancel()
	wg.Wait()
	require.NoError(t, runErr)
	sends := h.api.recorded("sendMessage")
	require.Contains(t, sends[0].Params["text"], "Welcome")
	require.Contains(t, sends[1].Params["text"], "No rooms")
}

// TestRunBadToken: a poll refused for good (401) ends Run with the error.
func TestRunBadToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.api.failNext("getUpdates", http.StatusUnauthorized)
	var ae *bot.APIError
	require.ErrorAs(t, h.bot.Run(context.Background()), &ae)
	require.Equal(t, http.StatusUnauthorized, ae.Status)
}
