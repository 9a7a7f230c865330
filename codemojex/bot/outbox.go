package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/tables"
)

// message is an outbox job's payload: one sendMessage.
type message struct {
	Chat     int64                        `json:"chat"`
	Text     string                       `json:"text"`
	Keyboard *models.InlineKeyboardMarkup `json:"keyboard,omitempty"`
	// Notice, when set, is the notices record to mark sent.
	Notice string `json:"notice,omitempty"`
	// Compose marks the keyboard message of the chat's compose record.
	Compose bool `json:"compose,omitempty"`
}

// lane is a chat's outbox lane: its messages go out one at a time, in
// the order they were queued.
func lane(chat int64) string { return "chat." + strconv.FormatInt(chat, 10) }

// post queues a message on its chat's lane under id (minted when zero);
// a message queued before under the same id is not queued again.
func (b *Bot) post(ctx context.Context, m message, id echomq.ID) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = b.outbox.Enqueue(ctx, lane(m.Chat), raw, &lanes.EnqueueOpts{ID: id})
	if errors.Is(err, lanes.ErrDuplicate) {
		return nil
	}
	return err
}

// reply queues a plain message to chat.
func (b *Bot) reply(ctx context.Context, chat int64, text string, kb *models.InlineKeyboardMarkup) error {
	return b.post(ctx, message{Chat: chat, Text: text, Keyboard: kb}, echomq.ID{})
}

// deliver is the outbox's handler: it sends one message under the rate
// limits. A 429 holds the chat's lane for retry_after; a 5xx or a network
// failure backs off; any other refusal (the user blocked the bot, the
// chat is gone) kills the job, which stays in the dead list.
func (b *Bot) deliver(ctx context.Context, job *lanes.Job) error {
	var m message
	if err := json.Unmarshal(job.Payload, &m); err != nil {
		return lanes.Cancel(fmt.Errorf("bot: outbox job %s: %w", job.ID, err))
	}
	if m.Notice != "" {
		n, _, err := readJSON[noticeRecord](ctx, b, tableNotices, m.Notice)
		if err != nil {
			return err
		}
		if n.Sent {
			return nil // a copy that came back after its send was recorded
		}
	}
	p := &tgbot.SendMessageParams{ChatID: m.Chat, Text: m.Text}
	if m.Keyboard != nil {
		p.ReplyMarkup = m.Keyboard
	}
	var sent *models.Message
	err := b.once(ctx, m.Chat, "sendMessage", func(ctx context.Context) (err error) {
		sent, err = b.tg.SendMessage(ctx, p)
		return err
	})
	var ae *APIError
	switch {
	case err == nil:
	case errors.As(err, &ae) && ae.RetryAfter > 0:
		return lanes.RetryAfter(ae.RetryAfter, err)
	case errors.As(err, &ae) && ae.Temporary():
		return err // the worker's backoff holds the lane
	case errors.As(err, &ae) && ae.Status >= 400:
		b.log.Warn("bot: message refused", "chat", m.Chat, "job", job.ID, "err", err)
		return lanes.Cancel(err)
	default:
		return err
	}
	// Sent: record it, so neither a redelivered event nor a retry of this
	// job sends it again. A crash right here is the one window in which a
	// message may go out twice.
	switch {
	case m.Notice != "":
		return b.update(ctx, func(ctx context.Context, tx *tables.Tx) error {
			n, ok, err := getJSON[noticeRecord](ctx, tx, tableNotices, m.Notice)
			if err != nil || !ok {
				// Gone: pruned while the message was on its way, so its
				// event is past NoticeTTL, the window in which it can come
				// back; writing the record again would undo the prune.
				return err
			}
			n.Sent = true
			return putJSON(tx, tableNotices, m.Notice, n)
		})
	case m.Compose:
		return b.update(ctx, func(ctx context.Context, tx *tables.Tx) error {
			c, ok, err := getJSON[composeRecord](ctx, tx, tableCompose, chatKey(m.Chat))
			if err != nil || !ok || c.Job != job.ID.String() {
				return err
			}
			c.Msg = sent.ID
			return putJSON(tx, tableCompose, chatKey(m.Chat), c)
		})
	}
	return nil
}

// senders returns the outbox worker.
func (b *Bot) senders() (*lanes.Worker, error) {
	return lanes.NewWorker(b.outbox, lanes.HandlerFunc(b.deliver), &lanes.WorkerConfig{
		Concurrency: b.cfg.Senders,
		Lease:       b.cfg.Lease,
		Backoff:     lanes.Jitter(lanes.Exponential(b.cfg.Backoff, b.cfg.MaxBackoff)),
		Logger:      b.log,
	})
}
