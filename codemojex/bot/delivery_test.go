package bot_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/bot"
)

// TestRetryAfter: a message answered 429 with retry_after 1 waits that
// second on its chat's lane, then is delivered, once.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	h.api.failNext("sendMessage", http.StatusTooManyRequests)
	h.text(301, "/help")
	h.api.await(t, "sendMessage", 301, "/rooms")
	h.awaitOutboxIdle()
	sends := h.api.to("sendMessage", 301, "/rooms")
	require.Len(t, sends, 2, "refused with 429, then delivered")
	require.GreaterOrEqual(t, sends[1].At.Sub(sends[0].At), 950*time.Millisecond, "retry_after honoured")
	st, err := h.bot.Outbox().Stats(t.Context())
	require.NoError(t, err)
	require.EqualValues(t, 1, st.Completed)
	require.EqualValues(t, 1, st.Retried+st.Failed, "one failed attempt")
}

// TestServerErrorsBackOff: 5xx answers are retried with backoff until the
// message goes through; the chat's next message waits its turn.
func TestServerErrorsBackOff(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	h.api.failNext("sendMessage", http.StatusBadGateway, http.StatusServiceUnavailable)
	h.text(302, "/help")
	h.text(302, "/rooms")
	h.api.await(t, "sendMessage", 302, "No rooms")
	h.awaitOutboxIdle()
	var texts []string
	for _, c := range h.api.recorded("sendMessage") {
		texts = append(texts, c.Text())
	}
	require.Len(t, texts, 4, "two refusals, then both messages")
	require.Equal(t, texts[0], texts[2], "the help text retried")
	require.Contains(t, texts[3], "No rooms", "in order")
}

// TestRefusedMessageDies: a 403 (the user blocked the bot) is not retried;
// the message lands in the outbox's dead list and the chat's lane moves on.
func TestRefusedMessageDies(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	h.api.failNext("sendMessage", http.StatusForbidden)
	h.text(303, "/help")
	h.text(303, "/rooms")
	h.api.await(t, "sendMessage", 303, "No rooms")
	h.awaitOutboxIdle()
	require.Len(t, h.api.recorded("sendMessage"), 2)
	dead, err := h.bot.Outbox().Dead(t.Context(), 0, 10)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	require.Equal(t, "chat.303", dead[0].Lane)
}

// TestEditRetried: a keyboard edit answered 502 is retried in place.
func TestEditRetried(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	room := h.room("Zoo")
	h.text(304, "/start")
	h.press(304, 1, "j:"+room)
	kb := h.keyboard(304)
	h.api.failNext("editMessageText", http.StatusBadGateway)
	h.api.failNext("answerCallbackQuery", http.StatusTooManyRequests)
	h.press(304, kb.MsgID, "p:"+buttons(kb)[0][2:])
	require.Len(t, h.api.to("editMessageText", 304, "(1/6)"), 2, "502, then edited")
	answers := h.api.recorded("answerCallbackQuery")
	last := answers[len(answers)-2:]
	require.GreaterOrEqual(t, last[1].At.Sub(last[0].At), 950*time.Millisecond, "retry_after honoured in place")
}

// TestChatRate: one chat's messages are spaced by its rate limit (5/s,
// burst 1 here).
func TestChatRate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{ChatRate: 5, ChatBurst: 1, GlobalRate: 1000})
	// A first message to another chat opens the connection, so no dial
	// delays the first of the measured ones.
	h.text(306, "/help")
	h.api.await(t, "sendMessage", 306, "/rooms")
	for range 4 {
		h.text(305, "/help")
	}
	h.awaitOutboxIdle()
	sends := h.api.to("sendMessage", 305, "/rooms")
	require.Len(t, sends, 4)
	// Three gaps of 200ms at least, less some slack for when the requests
	// arrive rather than leave.
	require.GreaterOrEqual(t, sends[3].At.Sub(sends[0].At), 450*time.Millisecond)
}

// TestPolling: Run feeds getUpdates' updates to the handlers in order,
// acknowledges them with the next offset, and returns nil once its
// context is cancelled.
func TestPolling(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{NotifyGroup: "polling"})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() { runErr = h.bot.Run(ctx) })
	h.api.push(textUpdate(401, 401, "/start"))
	h.api.push(textUpdate(401, 401, "/rooms"))
	h.api.await(t, "sendMessage", 401, "No rooms")
	h.api.waitPoll(t, 3)
	cancel()
	wg.Wait()
	require.NoError(t, runErr)
	sends := h.api.recorded("sendMessage")
	require.Len(t, sends, 2)
	require.Contains(t, sends[0].Text(), "Welcome")
	require.Contains(t, sends[1].Text(), "No rooms")
}

// TestRunBadToken: a token Telegram refuses (getMe answers 401) ends Run
// with the *APIError.
func TestRunBadToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	h.api.failNext("getMe", http.StatusUnauthorized)
	var ae *bot.APIError
	require.ErrorAs(t, h.bot.Run(context.Background()), &ae)
	require.Equal(t, http.StatusUnauthorized, ae.Status)
	require.False(t, ae.Temporary())
}

// TestSetWebhook registers the webhook with the secret token.
func TestSetWebhook(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	require.NoError(t, h.bot.SetWebhook(t.Context(), "https://example.com/telegram"))
	calls := h.api.recorded("setWebhook")
	require.Len(t, calls, 1)
	require.Equal(t, "https://example.com/telegram", calls[0].Params["url"])
	require.Equal(t, secret, calls[0].Params["secret_token"])
	require.NoError(t, h.bot.DeleteWebhook(t.Context()))
	require.Len(t, h.api.recorded("deleteWebhook"), 1)
}

func (h *harness) room(name string) string {
	h.t.Helper()
	r, err := h.e.CreateRoom(context.Background(), codemojexRoom(name))
	require.NoError(h.t, err)
	return r.ID
}
