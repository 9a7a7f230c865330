package bot_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/bot"
)

func TestNewBadInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, tc := range []struct {
		name string
		cfg  bot.Config
	}{
		{"no token", bot.Config{}},
		{"token with slash", bot.Config{Token: "1/2"}},
		{"negative rate", bot.Config{Token: "1:a", GlobalRate: -1}},
		{"negative burst", bot.Config{Token: "1:a", ChatBurst: -1}},
		{"negative retries", bot.Config{Token: "1:a", Retries: -1}},
		{"negative timeout", bot.Config{Token: "1:a", PollTimeout: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := bot.New(h.e, tc.cfg)
			var ae *echomq.ArgumentError
			require.ErrorAs(t, err, &ae)
			require.ErrorIs(t, err, echomq.ErrInvalidArgument)
		})
	}
	_, err := bot.New(nil, bot.Config{Token: "1:a"})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}

// TestWebhookBadRequests: with the right secret, a wrong method or a body
// that is not an update is refused without a Bot API call.
func TestWebhookBadRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
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

// TestOtherPlayersKeyboard: in a group chat, a press on another player's
// compose keyboard changes nothing.
func TestOtherPlayersKeyboard(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	room, err := h.e.CreateRoom(t.Context(), roomSpec())
	require.NoError(t, err)
	h.text(501, "/start")
	h.press(501, 1, "j:"+room.ID)
	game := h.last("sendMessage", 501)
	edits := len(h.api.recorded("editMessageText"))
	// user 502 presses in chat 501
	require.Equal(t, http.StatusOK, h.hook(bot.Update{CallbackQuery: &bot.CallbackQuery{ID: "x", From: bot.User{ID: 502, FirstName: "mallory"},
		Message: &bot.Message{MessageID: game.MsgID, Chat: bot.Chat{ID: 501}}, Data: "c"}}, secret))
	require.Len(t, h.api.recorded("editMessageText"), edits)
	require.Contains(t, lastAnswer(h), "another player")
}
