package bot

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"sync"

	tgbot "github.com/go-telegram/bot"

	"github.com/echomq/echomq"
)

// Run serves the bot in long-polling mode until ctx is done, then returns
// nil: it checks the token (getMe; a refusal is returned as an
// [*APIError]), then polls getUpdates and handles each update in order,
// while [Bot.Serve]'s parts send the outbox and the notifications.
func (b *Bot) Run(ctx context.Context) error {
	err := b.once(ctx, 0, "getMe", func(ctx context.Context) error {
		_, err := b.tg.GetMe(ctx)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var serveErr error
	wg.Go(func() {
		serveErr = b.Serve(ctx)
		cancel() // a failed part stops the poller too
	})
	b.tg.Start(ctx)
	cancel()
	wg.Wait()
	return serveErr
}

// Serve runs what the bot does besides taking updates, until ctx is done:
// the outbox senders, the consumer groups turning scores and settlements
// into notifications, and an hourly pass deleting notices older than
// Config.NoticeTTL. Webhook mode runs Serve beside the HTTP
// server; [Bot.Run] runs it itself. It returns nil once ctx is done, or
// the error of a part that failed (the others are stopped first).
func (b *Bot) Serve(ctx context.Context) error {
	w, err := b.senders()
	if err != nil {
		return err
	}
	cs, err := b.consumers()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := w.Run(ctx); err != nil && ctx.Err() == nil {
			cancel(err)
		}
	})
	wg.Go(func() { b.runPrune(ctx) })
	for _, c := range cs {
		wg.Go(func() {
			if err := c.Run(ctx); err != nil && ctx.Err() == nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// Webhook returns the handler for Telegram's webhook POSTs. A request
// without the configured secret token (compared in constant time) gets
// 401 and is not read; a method other than POST gets 405, a body that is
// not an update 400. An update is handled before the answer, so a 200
// means it was processed (Telegram redelivers on anything else).
func (b *Bot) Webhook() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !b.secretOK(r.Header.Get("X-Telegram-Bot-Api-Secret-Token")) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		u, err := decodeUpdate(r.Body)
		if err != nil {
			http.Error(w, "bad update", http.StatusBadRequest)
			return
		}
		b.tg.ProcessUpdate(r.Context(), u)
		w.WriteHeader(http.StatusOK)
	})
}

// secretOK compares a webhook's secret token with the configured one in
// constant time over their SHA-256 digests, so neither the content nor the
// length of the secret leaks through timing.
func (b *Bot) secretOK(got string) bool {
	if b.cfg.WebhookSecret == "" {
		return false
	}
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(b.cfg.WebhookSecret))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// SetWebhook tells Telegram to post updates to url (https, reachable from
// Telegram) with the configured secret token; Telegram then refuses long
// polling. It returns an [*echomq.ArgumentError] without a WebhookSecret
// or for a url that is not https, and an [*APIError] when Telegram
// refuses.
func (b *Bot) SetWebhook(ctx context.Context, url string) error {
	if b.cfg.WebhookSecret == "" {
		return &echomq.ArgumentError{Name: "WebhookSecret", Reason: "is required: the webhook refuses requests without it"}
	}
	if !strings.HasPrefix(url, "https://") {
		return &echomq.ArgumentError{Name: "url", Reason: "must be an https URL"}
	}
	return b.call(ctx, 0, "setWebhook", func(ctx context.Context) error {
		_, err := b.tg.SetWebhook(ctx, &tgbot.SetWebhookParams{
			URL: url, SecretToken: b.cfg.WebhookSecret,
			AllowedUpdates: []string{"message", "callback_query"},
		})
		return err
	})
}

// DeleteWebhook removes the webhook, so long polling works again.
func (b *Bot) DeleteWebhook(ctx context.Context) error {
	return b.call(ctx, 0, "deleteWebhook", func(ctx context.Context) error {
		_, err := b.tg.DeleteWebhook(ctx, &tgbot.DeleteWebhookParams{})
		return err
	})
}
