package bot_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
)

func TestNewBadInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	for _, tc := range []struct {
		name string
		cfg  bot.Config
		want error
	}{
		{"no token", bot.Config{}, echomq.ErrInvalidArgument},
		{"token with slash", bot.Config{Token: "1/2"}, echomq.ErrInvalidArgument},
		{"token with space", bot.Config{Token: "1 2"}, echomq.ErrInvalidArgument},
		{"negative rate", bot.Config{Token: "1:a", GlobalRate: -1}, echomq.ErrInvalidArgument},
		{"negative chat rate", bot.Config{Token: "1:a", ChatRate: -1}, echomq.ErrInvalidArgument},
		{"negative burst", bot.Config{Token: "1:a", ChatBurst: -1}, echomq.ErrInvalidArgument},
		{"negative retries", bot.Config{Token: "1:a", Retries: -1}, echomq.ErrInvalidArgument},
		{"negative backoff", bot.Config{Token: "1:a", Backoff: -1}, echomq.ErrInvalidArgument},
		{"negative timeout", bot.Config{Token: "1:a", PollTimeout: -1}, echomq.ErrInvalidArgument},
		{"negative senders", bot.Config{Token: "1:a", Senders: -1}, echomq.ErrInvalidArgument},
		{"attempts over the limit", bot.Config{Token: "1:a", MaxAttempts: 1001}, echomq.ErrInvalidArgument},
		{"negative lease", bot.Config{Token: "1:a", Lease: -1}, echomq.ErrInvalidArgument},
		{"lease too short", bot.Config{Token: "1:a", Lease: time.Millisecond}, echomq.ErrInvalidArgument},
		{"negative redelivery", bot.Config{Token: "1:a", Redelivery: -1}, echomq.ErrInvalidArgument},
		{"bad queue", bot.Config{Token: "1:a", Queue: "a b"}, echomq.ErrInvalidName},
		{"bad group", bot.Config{Token: "1:a", NotifyGroup: "a:b"}, echomq.ErrInvalidName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := bot.New(h.e, &tc.cfg)
			require.ErrorIs(t, err, tc.want)
		})
	}
	_, err := bot.New(nil, &bot.Config{Token: "1:a"})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}

// TestWebhookWrongSecret refuses a request without the right secret
// token: 401, no Bot API call, no sign-in, no join.
func TestWebhookWrongSecret(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	ctx := context.Background()
	room, err := h.e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Zoo"})
	require.NoError(t, err)
	for _, tok := range []string{"", "wrong", secret + "x", secret[:len(secret)-1], strings.ToUpper(secret)} {
		require.Equal(t, http.StatusUnauthorized, h.hook(pressUpdate(7, 7, 1, "j:"+room.ID), tok), "token %q", tok)
		require.Equal(t, http.StatusUnauthorized, h.hook(textUpdate(7, 7, "/start"), tok), "token %q", tok)
	}
	h.awaitOutboxIdle()
	h.api.mu.Lock()
	require.Empty(t, h.api.calls)
	h.api.mu.Unlock()
	r, err := h.e.Room(ctx, room.ID)
	require.NoError(t, err)
	require.Empty(t, r.Game, "no game started")
	require.Zero(t, r.Games)
	st, err := h.bot.Outbox().Stats(ctx)
	require.NoError(t, err)
	require.Zero(t, st.Enqueued, "nothing queued")
}

// TestWebhookBadRequests: with the right secret, a wrong method or a body
// that is not an update is refused without a Bot API call.
func TestWebhookBadRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	for _, tc := range []struct {
		name, method, body string
		want               int
	}{
		{"get", http.MethodGet, "", http.StatusMethodNotAllowed},
		{"not json", http.MethodPost, "hello", http.StatusBadRequest},
		{"wrong shape", http.MethodPost, `{"update_id":"x"}`, http.StatusBadRequest},
	} {
		req := httptest.NewRequest(tc.method, "/telegram", strings.NewReader(tc.body))
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		rec := httptest.NewRecorder()
		h.bot.Webhook().ServeHTTP(rec, req)
		require.Equal(t, tc.want, rec.Code, tc.name)
	}
	h.api.mu.Lock()
	defer h.api.mu.Unlock()
	require.Empty(t, h.api.calls)
}

// TestWebhookWithoutSecret: a bot configured without a secret refuses
// every webhook request, and will not register a webhook.
func TestWebhookWithoutSecret(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	b, err := bot.New(h.e, &bot.Config{Token: "1:a", ServerURL: h.api.srv.URL, Logger: quiet})
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/telegram", strings.NewReader(`{"update_id":1}`))
	rec := httptest.NewRecorder()
	b.Webhook().ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.ErrorIs(t, b.SetWebhook(t.Context(), "https://example.com/hook"), echomq.ErrInvalidArgument)
	require.ErrorIs(t, h.bot.SetWebhook(t.Context(), "http://example.com/hook"), echomq.ErrInvalidArgument)
	require.Empty(t, h.api.recorded("setWebhook"))
}

// TestBadPresses: presses on another player's keyboard, on a stale
// keyboard, and unknown buttons change nothing.
func TestBadPresses(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	room, err := h.e.CreateRoom(t.Context(), codemojex.RoomSpec{Name: "Zoo"})
	require.NoError(t, err)
	h.text(501, "/start")
	h.press(501, 1, "j:"+room.ID)
	kb := h.keyboard(501)
	edits := len(h.api.recorded("editMessageText"))
	for _, tc := range []struct {
		name           string
		from, msg      int64
		data, answered string
	}{
		{"another player's keyboard", 502, kb.MsgID, "c", "another player"},
		{"a stale keyboard", 501, kb.MsgID - 1, "c", "stale"},
		{"an unknown button", 501, kb.MsgID, "zz", "Unknown button"},
		{"submit with nothing picked", 501, kb.MsgID, "s", "Pick 6"},
		{"undo with nothing picked", 501, kb.MsgID, "u", "Nothing to undo"},
		{"a bad room", 501, kb.MsgID, "j:nope", "Not found"},
	} {
		require.Equal(t, http.StatusOK, h.hook(pressUpdate(tc.from, 501, tc.msg, tc.data), secret), tc.name)
		require.Contains(t, h.lastAnswer(), tc.answered, tc.name)
	}
	require.Len(t, h.api.recorded("editMessageText"), edits, "no keyboard changed")
}
