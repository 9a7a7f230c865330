package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/echomqtest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

const secret = "webhook-secret"

type harness struct {
	t   *testing.T
	e   *codemojex.Engine
	api *fakeAPI
	bot *bot.Bot
	nu  int64
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	client, err := echomq.Connect(context.Background(), echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	e, err := codemojex.New(client, codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet, StarterKeys: 10})
	require.NoError(t, err)
	f := newFakeAPI(t)
	b, err := bot.New(e, bot.Config{Token: "123:abc", ServerURL: f.srv.URL, WebhookSecret: secret,
		PollTimeout: time.Second, ChatRate: 1000, ChatBurst: 100, GlobalRate: 1000, Backoff: 10 * time.Millisecond, Logger: quiet})
	require.NoError(t, err)
	return &harness{t: t, e: e, api: f, bot: b}
}

// hook posts an update to the webhook handler and returns the status.
func (h *harness) hook(u bot.Update, token string) int {
	h.t.Helper()
	h.nu++
	u.UpdateID = h.nu
	body, err := json.Marshal(u)
	require.NoError(h.t, err)
	req := httptest.NewRequest(http.MethodPost, "/telegram", bytes.NewReader(body))
	if token != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", token)
	}
	rec := httptest.NewRecorder()
	h.bot.Webhook().ServeHTTP(rec, req)
	return rec.Code
}

func (h *harness) text(user int64, text string) {
	h.t.Helper()
	require.Equal(h.t, http.StatusOK, h.hook(bot.Update{Message: &bot.Message{MessageID: 1, Chat: bot.Chat{ID: user}, From: &bot.User{ID: user, FirstName: "u" + strconv.FormatInt(user, 10)}, Text: text}}, secret))
}

func (h *harness) press(user, msg int64, data string) {
	h.t.Helper()
	require.Equal(h.t, http.StatusOK, h.hook(bot.Update{CallbackQuery: &bot.CallbackQuery{ID: "q" + strconv.FormatInt(h.nu, 10), From: bot.User{ID: user, FirstName: "u" + strconv.FormatInt(user, 10)},
		Message: &bot.Message{MessageID: msg, Chat: bot.Chat{ID: user}}, Data: data}}, secret))
}

// last returns the last call of method to chat.
func (h *harness) last(method string, chat int64) call {
	h.t.Helper()
	cs := h.api.recorded(method)
	for i := len(cs) - 1; i >= 0; i-- {
		if id, _ := cs[i].Params["chat_id"].(float64); int64(id) == chat {
			return cs[i]
		}
	}
	h.t.Fatalf("no %s to chat %d", method, chat)
	return call{}
}

// buttons flattens a call's inline keyboard to its callback data.
func buttons(c call) []string {
	var out []string
	kb, _ := c.Params["reply_markup"].(map[string]any)
	rows, _ := kb["inline_keyboard"].([]any)
	for _, r := range rows {
		for _, b := range r.([]any) {
			out = append(out, b.(map[string]any)["callback_data"].(string))
		}
	}
	return out
}
