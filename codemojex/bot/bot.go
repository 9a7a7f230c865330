package bot

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/lanes"
)

// Config configures a [Bot]. Only Token is required.
type Config struct {
	// Token is the bot's Bot API token. Required.
	Token string
	// ServerURL is the Bot API server. Defaults to https://api.telegram.org.
	ServerURL string
	// Queue holds the bot's state (players' chats, keyboards being
	// composed, notifications sent) and its outbox lanes. Defaults to the
	// engine's queue followed by "-tg".
	Queue string
	// WebhookSecret is the secret token Telegram sends with each webhook
	// request. Without it [Bot.Webhook] refuses every request.
	WebhookSecret string
	// WebAppURL, if set, is the web app's address, offered by /start as a
	// button that opens it as a Telegram Mini App. Defaults to "".
	WebAppURL string
	// Views, if set, backs /top with the live leaderboards.
	Views *views.Views
	// HTTPClient makes the Bot API calls. Defaults to a client with a
	// timeout of PollTimeout plus 10 seconds.
	HTTPClient *http.Client
	// PollTimeout is getUpdates' long-poll timeout. Defaults to 30s.
	PollTimeout time.Duration
	// GlobalRate is the outbound calls per second overall. Defaults to 30,
	// Telegram's limit for a bot.
	GlobalRate float64
	// ChatRate is the outbound calls per second to one chat. Defaults to 1.
	ChatRate float64
	// ChatBurst is the burst allowed per chat. Defaults to 3.
	ChatBurst int
	// Retries is how often a callback answer or keyboard edit failing
	// with 429 or 5xx is retried in place. Defaults to 5.
	Retries int
	// Backoff is the first wait before a retry without retry_after,
	// doubled each time up to MaxBackoff. Defaults to 500ms.
	Backoff time.Duration
	// MaxBackoff caps the backoff. Defaults to 1 minute.
	MaxBackoff time.Duration
	// MaxAttempts is how often an outbox message is tried before it is
	// dead (kept in the outbox's dead list for an operator). Defaults to 20.
	MaxAttempts int
	// Senders is how many outbox messages go out at once (each chat's
	// lane still sends one at a time, in order). Defaults to 16.
	Senders int
	// Lease is how long a sender's claim on a message holds before
	// another sender may take it over (after a crash). Defaults to 30s.
	Lease time.Duration
	// Redelivery is how long an event whose notifications were not queued
	// (the notifier failed or crashed) waits before it is delivered again.
	// Defaults to 30s.
	Redelivery time.Duration
	// NoticeTTL is how long the record that a notification was queued and
	// sent is kept (then an hourly pass deletes it); a redelivery of an
	// event older than that would notify again. Defaults to 7 days.
	NoticeTTL time.Duration
	// NotifyGroup names the consumer groups that turn the engine's events
	// into notifications. Defaults to "telegram".
	NotifyGroup string
	// Logger logs failed updates and sends. Defaults to slog.Default().
	Logger *slog.Logger
}

// Bot serves codemojex over the Telegram Bot API. Its state lives in
// records of its queue, so several processes may serve webhooks for one
// bot; long polling must run in one process only (Telegram refuses a
// second poller).
type Bot struct {
	e      *codemojex.Shards
	c      *echomq.Client
	cfg    Config
	tg     *tgbot.Bot
	lim    *limits
	outbox *lanes.Queue
	log    *slog.Logger

	// players caches Telegram user id → player id, which never changes
	// once made.
	players sync.Map
}

// New returns a bot over e. It makes no call yet. It returns an
// [*echomq.ArgumentError] for a missing engine or token or a bad setting,
// and an [*echomq.NameError] for a bad queue or group name.
func New(e *codemojex.Engine, config *Config) (*Bot, error) {
	if e == nil {
		return nil, &echomq.ArgumentError{Name: "engine", Reason: "is required"}
	}
	return NewSharded(codemojex.Single(e), config)
}

// NewSharded returns a bot over a sharded game (docs/codemojex.md,
// "Sharding"): it notifies from every shard's streams, lists a player the
// rooms of every shard and acts in the shard of each room, game and
// player. Its own state lives in Config.Queue (default "<base queue>-tg").
// With one shard it is [New].
func NewSharded(e *codemojex.Shards, config *Config) (*Bot, error) {
	var cfg Config
	if config != nil {
		cfg = *config
	}
	if e == nil {
		return nil, &echomq.ArgumentError{Name: "engine", Reason: "is required"}
	}
	if cfg.Token == "" || strings.ContainsAny(cfg.Token, "/ ") {
		return nil, &echomq.ArgumentError{Name: "token", Reason: "is required and may not hold '/' or spaces"}
	}
	if cfg.GlobalRate < 0 || cfg.ChatRate < 0 || cfg.ChatBurst < 0 || cfg.Retries < 0 || cfg.Backoff < 0 ||
		cfg.MaxBackoff < 0 || cfg.PollTimeout < 0 || cfg.MaxAttempts < 0 || cfg.Senders < 0 || cfg.Lease < 0 || cfg.Redelivery < 0 || cfg.NoticeTTL < 0 {
		return nil, &echomq.ArgumentError{Name: "config", Reason: "rates, burst, retries, attempts, senders and durations may not be negative"}
	}
	if cfg.MaxAttempts > lanes.MaxAttemptsLimit {
		return nil, &echomq.ArgumentError{Name: "config", Reason: "MaxAttempts is at most 1000"}
	}
	cfg.ServerURL = strings.TrimRight(cmp.Or(cfg.ServerURL, "https://api.telegram.org"), "/")
	cfg.Queue = cmp.Or(cfg.Queue, e.Base()+"-tg")
	cfg.PollTimeout = cmp.Or(cfg.PollTimeout, 30*time.Second)
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: cfg.PollTimeout + 10*time.Second}
	}
	cfg.GlobalRate = cmp.Or(cfg.GlobalRate, 30)
	cfg.ChatRate = cmp.Or(cfg.ChatRate, 1)
	cfg.ChatBurst = cmp.Or(cfg.ChatBurst, 3)
	cfg.Retries = cmp.Or(cfg.Retries, 5)
	cfg.Backoff = cmp.Or(cfg.Backoff, 500*time.Millisecond)
	cfg.MaxBackoff = cmp.Or(cfg.MaxBackoff, time.Minute)
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, 20)
	cfg.Senders = cmp.Or(cfg.Senders, 16)
	cfg.Lease = cmp.Or(cfg.Lease, 30*time.Second)
	cfg.Redelivery = cmp.Or(cfg.Redelivery, 30*time.Second)
	cfg.NoticeTTL = cmp.Or(cfg.NoticeTTL, 7*24*time.Hour)
	cfg.NotifyGroup = cmp.Or(cfg.NotifyGroup, "telegram")
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	c := e.Shard(0).Client()
	if err := c.Stream(e.Shard(0).Queue(), codemojex.StreamGuessScored).Group(cfg.NotifyGroup).Err(); err != nil {
		return nil, err
	}
	outbox, err := lanes.New(c, cfg.Queue, &lanes.Config{MaxAttempts: cfg.MaxAttempts, Tombstone: 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	b := &Bot{e: e, c: c, cfg: cfg, lim: newLimits(cfg.GlobalRate, cfg.ChatRate, cfg.ChatBurst), outbox: outbox, log: cfg.Logger}
	// Check the senders' and notifiers' settings now rather than at Serve
	// (neither does I/O until run).
	if _, err := b.senders(); err != nil {
		return nil, err
	}
	if _, err := b.consumers(); err != nil {
		return nil, err
	}
	b.tg, err = tgbot.New(cfg.Token,
		tgbot.WithServerURL(cfg.ServerURL),
		tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(cfg.PollTimeout, statusClient{cfg.HTTPClient}),
		tgbot.WithAllowedUpdates(tgbot.AllowedUpdates{"message", "callback_query"}),
		// One update at a time, in order: a chat's presses build on each other.
		tgbot.WithNotAsyncHandlers(),
		tgbot.WithWorkers(1),
		// No buffer: getUpdates confirms an update (by asking past it) only
		// once the handler took it, so a stop loses at most the update in
		// hand rather than a buffer of fetched ones.
		tgbot.WithUpdatesChannelCap(0),
		tgbot.WithDefaultHandler(func(ctx context.Context, _ *tgbot.Bot, u *models.Update) { b.Handle(ctx, u) }),
		tgbot.WithErrorsHandler(func(err error) { b.log.Warn("bot: telegram", "err", err) }),
	)
	if err != nil {
		return nil, &echomq.ArgumentError{Name: "token", Reason: err.Error()}
	}
	return b, nil
}

// Outbox returns the lanes queue the bot's messages wait in, one lane per
// chat, for inspection (dead messages, lane depths).
func (b *Bot) Outbox() *lanes.Queue { return b.outbox }

// Config returns the configuration with the defaults filled in.
func (b *Bot) Config() Config { return b.cfg }
