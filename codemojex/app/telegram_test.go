package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

// TestServeTelegramWebhook: with a bot token and a webhook secret, serve
// registers the webhook with the Bot API, takes updates at
// /telegram/webhook (refusing a wrong secret with 401) and answers
// through the outbox.
func TestServeTelegramWebhook(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []string
	var texts []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseMultipartForm(1 << 20)
		method := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
		mu.Lock()
		calls = append(calls, method+" "+r.FormValue("url")+" "+r.FormValue("secret_token"))
		if method == "sendMessage" {
			texts = append(texts, r.FormValue("text"))
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch method {
		case "sendMessage":
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"message_id": 5, "date": 1, "chat": map[string]any{"id": 42, "type": "private"}}})
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": true})
		}
	}))
	defer api.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, &ServeConfig{
			Addr: "127.0.0.1:0", URL: echomqtest.Shared(t).URL(), Queue: echomqtest.Queue(t),
			OperatorToken: "op", Workers: 2, Logger: quiet, TelegramBotToken: "1:tok", TelegramAPI: api.URL,
			TelegramWebhookSecret: "hook-secret", TelegramWebhookURL: "https://bot.example/telegram/webhook",
			Ready: func(u string) { ready <- u },
		})
	}()
	base := serving(t, ready, served)
	mu.Lock()
	require.Equal(t, []string{"setWebhook https://bot.example/telegram/webhook hook-secret"}, calls)
	mu.Unlock()

	post := func(secret string) int {
		body := `{"update_id":1,"message":{"message_id":1,"date":1,"text":"/start","from":{"id":42,"is_bot":false,"first_name":"ann"},"chat":{"id":42,"type":"private"}}}`
		req, err := http.NewRequest(http.MethodPost, base+"/telegram/webhook", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusUnauthorized, post("wrong"))
	require.Equal(t, http.StatusOK, post("hook-secret"))
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(texts) == 1 && strings.Contains(texts[0], "Welcome")
	}, 20*time.Second, 10*time.Millisecond, "the welcome, once")
	cancel()
	require.NoError(t, echomqtest.Recv(t, served, 30*time.Second, "the server to stop"))
}
