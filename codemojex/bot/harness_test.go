package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/tables"
)

var quiet = slog.New(slog.DiscardHandler)

const secret = "webhook-secret"

// harness is an engine on a harness-started redis-server with its scoring
// worker and views running, a fake Bot API server, and a bot serving
// (outbox and notifications) against both.
type harness struct {
	t      *testing.T
	client *echomq.Client
	url    string
	e      *codemojex.Engine
	views  *views.Views
	api    *fakeAPI
	bot    *bot.Bot
	nu     int64
}

// newHarness starts it all; cfg's Token, ServerURL, WebhookSecret, Views
// and Logger are filled in, and fast rates and backoffs unless set.
func newHarness(t *testing.T, cfg bot.Config) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	client, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	e, err := codemojex.New(client, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet, StarterKeys: 10})
	require.NoError(t, err)
	v, err := views.New(e, &views.Config{Block: 100 * time.Millisecond})
	require.NoError(t, err)
	w, err := e.Worker(&lanes.WorkerConfig{Concurrency: 4, Logger: quiet})
	require.NoError(t, err)
	h := &harness{t: t, client: client, url: echomqtest.Shared(t).URL(), e: e, views: v, api: newFakeAPI(t)}
	cfg.Token, cfg.ServerURL, cfg.WebhookSecret, cfg.Views, cfg.Logger = "123:abc", h.api.srv.URL, secret, v, quiet
	if cfg.ChatRate == 0 {
		cfg.ChatRate, cfg.ChatBurst, cfg.GlobalRate = 1000, 100, 1000
	}
	cfg.Backoff = max(cfg.Backoff, 10*time.Millisecond)
	cfg.PollTimeout = max(cfg.PollTimeout, 2*time.Second)
	h.bot, err = bot.New(e, &cfg)
	require.NoError(t, err)

	var wg sync.WaitGroup
	require.NoError(t, w.Start(ctx))
	wg.Go(func() { _ = v.Run(ctx) })
	wg.Go(func() {
		if err := h.bot.Serve(ctx); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	t.Cleanup(func() {
		require.NoError(t, w.Stop(context.Background()))
		cancel()
		wg.Wait()
		_ = client.Close()
	})
	h.awaitGroups(h.bot.Config().NotifyGroup)
	return h
}

// awaitGroups waits until the notifier's groups exist, so no event is
// appended before they start reading (they start at new entries).
func (h *harness) awaitGroups(group string) {
	h.t.Helper()
	require.Eventually(h.t, func() bool {
		for _, s := range []string{codemojex.StreamGuessScored, codemojex.StreamGameSettled} {
			gs, err := h.e.Stream(s).Groups(context.Background())
			if err != nil {
				return false
			}
			found := false
			for _, g := range gs {
				found = found || g.Name == group
			}
			if !found {
				return false
			}
		}
		return true
	}, 10*time.Second, 5*time.Millisecond)
}

// hook posts an update to the webhook handler and returns the status.
func (h *harness) hook(u map[string]any, token string) int {
	h.t.Helper()
	h.nu++
	u["update_id"] = h.nu
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

func user(id int64) map[string]any {
	return map[string]any{"id": id, "is_bot": false, "first_name": "u" + itoa(id)}
}

func textUpdate(from, chat int64, text string) map[string]any {
	return map[string]any{"message": map[string]any{
		"message_id": 1, "date": 1, "text": text, "from": user(from),
		"chat": map[string]any{"id": chat, "type": "private"},
	}}
}

func pressUpdate(from, chat, msg int64, data string) map[string]any {
	return map[string]any{"callback_query": map[string]any{
		"id": "q" + itoa(from) + "-" + data, "from": user(from), "chat_instance": "1", "data": data,
		"message": map[string]any{"message_id": msg, "date": 1, "chat": map[string]any{"id": chat, "type": "private"}},
	}}
}

// text sends a message from user in their private chat.
func (h *harness) text(u int64, text string) {
	h.t.Helper()
	require.Equal(h.t, http.StatusOK, h.hook(textUpdate(u, u, text), secret))
}

// press presses a button of message msg in user's private chat.
func (h *harness) press(u, msg int64, data string) {
	h.t.Helper()
	require.Equal(h.t, http.StatusOK, h.hook(pressUpdate(u, u, msg, data), secret))
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

// lastAnswer is the text of the latest callback answer.
func (h *harness) lastAnswer() string {
	cs := h.api.recorded("answerCallbackQuery")
	require.NotEmpty(h.t, cs)
	s, _ := cs[len(cs)-1].Params["text"].(string)
	return s
}

// secret peeks at a game's secret in its record, as only a test may.
func (h *harness) secret(game string) []string {
	h.t.Helper()
	raw, ok, err := tables.New(h.client, h.e.Queue(), "games").Get(context.Background(), game)
	require.NoError(h.t, err)
	require.True(h.t, ok)
	var g struct{ Secret string }
	require.NoError(h.t, json.Unmarshal(raw, &g))
	return strings.Split(g.Secret, ",")
}

// keyboard waits for the compose keyboard sent to u's chat, and until the
// bot has recorded its message id (a person cannot press it sooner).
func (h *harness) keyboard(u int64) call {
	h.t.Helper()
	kb := h.api.await(h.t, "sendMessage", u, "(0/6)")
	require.NotZero(h.t, kb.MsgID, "a sent keyboard has its message id")
	require.Eventually(h.t, func() bool {
		raw, ok, err := tables.New(h.client, h.bot.Config().Queue, "compose").Get(context.Background(), itoa(u))
		require.NoError(h.t, err)
		var c struct{ Msg int64 }
		return ok && json.Unmarshal(raw, &c) == nil && c.Msg == kb.MsgID
	}, 10*time.Second, 5*time.Millisecond)
	return kb
}
