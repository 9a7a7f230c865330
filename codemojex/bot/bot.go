package bot

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
)

// Config configures a [Bot].
type Config struct {
	// Token is the bot's Bot API token. Required.
	Token string
	// ServerURL is the Bot API server. Defaults to https://api.telegram.org.
	ServerURL string
	// WebhookSecret is the secret token Telegram sends with each webhook
	// request. Without it [Bot.Webhook] refuses every request.
	WebhookSecret string
	// Views, if set, backs /top with the live leaderboards.
	Views *views.Views
	// HTTPClient makes the Bot API calls. Defaults to a client with a
	// timeout of PollTimeout plus 10 seconds.
	HTTPClient *http.Client
	// PollTimeout is getUpdates' long-poll timeout. Defaults to 30 seconds.
	PollTimeout time.Duration
	// GlobalRate is the outbound calls per second overall. Defaults to 30.
	GlobalRate float64
	// ChatRate is the outbound messages per second to one chat. Defaults to 1.
	ChatRate float64
	// ChatBurst is the burst allowed per chat. Defaults to 3.
	ChatBurst int
	// Retries is how often a 429 or 5xx call is retried. Defaults to 5.
	Retries int
	// Backoff is the first wait before a retry without retry_after,
	// doubled each time. Defaults to 500ms.
	Backoff time.Duration
	// Logger logs failed updates. Defaults to slog.Default().
	Logger *slog.Logger
}

// Bot serves codemojex over the Telegram Bot API.
type Bot struct {
	e   *codemojex.Engine
	cfg Config
	api *client
	log *slog.Logger

	mu      sync.Mutex
	players map[int64]string   // Telegram user id -> player id
	compose map[int64]*compose // chat id -> guess being composed
	recent  map[string][]string
}

// New returns a bot over e. It returns an [*echomq.ArgumentError] for a
// missing token or a bad setting.
func New(e *codemojex.Engine, cfg Config) (*Bot, error) {
	if e == nil {
		return nil, &echomq.ArgumentError{Name: "engine", Reason: "is required"}
	}
	if cfg.Token == "" || strings.ContainsAny(cfg.Token, "/ ") {
		return nil, &echomq.ArgumentError{Name: "token", Reason: "is required and may not hold '/' or spaces"}
	}
	if cfg.GlobalRate < 0 || cfg.ChatRate < 0 || cfg.ChatBurst < 0 || cfg.Retries < 0 || cfg.Backoff < 0 || cfg.PollTimeout < 0 {
		return nil, &echomq.ArgumentError{Name: "config", Reason: "rates, burst, retries and durations may not be negative"}
	}
	if cfg.ServerURL == "" {
		cfg.ServerURL = "https://api.telegram.org"
	}
	if cfg.PollTimeout == 0 {
		cfg.PollTimeout = 30 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: cfg.PollTimeout + 10*time.Second}
	}
	if cfg.GlobalRate == 0 {
		cfg.GlobalRate = 30
	}
	if cfg.ChatRate == 0 {
		cfg.ChatRate = 1
	}
	if cfg.ChatBurst == 0 {
		cfg.ChatBurst = 3
	}
	if cfg.Retries == 0 {
		cfg.Retries = 5
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Bot{
		e: e, cfg: cfg, log: cfg.Logger,
		api: &client{
			base: strings.TrimRight(cfg.ServerURL, "/") + "/bot" + cfg.Token,
			http: cfg.HTTPClient, global: rate.NewLimiter(rate.Limit(cfg.GlobalRate), max(1, int(cfg.GlobalRate))),
			perChat: rate.Limit(cfg.ChatRate), burst: cfg.ChatBurst, retries: cfg.Retries, backoff: cfg.Backoff,
			chats: map[int64]*rate.Limiter{},
		},
		players: map[int64]string{}, compose: map[int64]*compose{}, recent: map[string][]string{},
	}, nil
}

// Run long-polls getUpdates and handles each update in order until ctx
// is done, then returns nil. Failed polls are retried after Backoff; it
// returns the error of a poll Telegram refuses for good (such as a bad
// token, or a webhook still set).
func (b *Bot) Run(ctx context.Context) error {
	var offset int64
	for {
		var ups []Update
		err := b.api.call(ctx, 0, "getUpdates", map[string]any{
			"offset": offset, "timeout": int(b.cfg.PollTimeout / time.Second),
			"allowed_updates": []string{"message", "callback_query"},
		}, &ups)
		if ctx.Err() != nil {
			return nil
		}
		var ae *APIError
		if errors.As(err, &ae) && (ae.Status == http.StatusUnauthorized || ae.Status == http.StatusConflict || ae.Status == http.StatusNotFound) {
			return err
		}
		if err != nil {
			b.log.Warn("bot: getUpdates", "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(b.cfg.Backoff):
			}
			continue
		}
		for _, u := range ups {
			offset = max(offset, u.UpdateID+1)
			b.Handle(ctx, u)
		}
	}
}

// Webhook returns the handler for Telegram's webhook POSTs. A request
// without the configured secret token gets 401 and is not read further;
// a body that is not an update gets 400.
func (b *Bot) Webhook() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("X-Telegram-Bot-Api-Secret-Token")
		if b.cfg.WebhookSecret == "" || subtle.ConstantTimeCompare([]byte(got), []byte(b.cfg.WebhookSecret)) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		var u Update
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&u); err != nil {
			http.Error(w, "bad update", http.StatusBadRequest)
			return
		}
		b.Handle(r.Context(), u)
		w.WriteHeader(http.StatusOK)
	})
}
