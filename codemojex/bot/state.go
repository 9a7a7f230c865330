package bot

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/echomq/echomq/tables"
)

// The bot's tables, in its queue (Config.Queue).
const (
	// tableChats: player id → chatRecord, where the player's
	// notifications go.
	tableChats = "chats"
	// tableCompose: chat id → composeRecord, the guess being composed in
	// that chat.
	tableCompose = "compose"
	// tableNotices: "<event id>.<player id>" → noticeRecord, one per
	// notification, so a redelivered event never queues a second one.
	tableNotices = "notices"
)

// Tables lists the bot's tables, for the keyspace registry.
var Tables = []string{tableChats, tableCompose, tableNotices}

// recentGuesses is how many guesses /me lists.
const recentGuesses = 5

// chatRecord is where a player talks to the bot, and their latest guesses.
type chatRecord struct {
	Chat   int64    `json:"chat"`
	Recent []string `json:"recent,omitempty"`
}

// composeRecord is a chat's guess in the making, shown in one message
// that is edited as it changes. Msg is 0 until the outbox has sent that
// message; Job is the outbox job sending it, so a late send of an older
// keyboard cannot claim the record.
type composeRecord struct {
	Player string   `json:"player"`
	Game   string   `json:"game"`
	Room   string   `json:"room"`
	Msg    int      `json:"msg,omitempty"`
	Job    string   `json:"job"`
	Picks  []string `json:"picks,omitempty"`
}

// noticeRecord is one notification: the outbox job carrying it, and
// whether Telegram took it.
type noticeRecord struct {
	Job  string `json:"job"`
	Sent bool   `json:"sent,omitempty"`
}

func chatKey(chat int64) string { return strconv.FormatInt(chat, 10) }

// getJSON reads a record of the bot's queue inside a transaction.
func getJSON[T any](ctx context.Context, tx *tables.Tx, table, key string) (T, bool, error) {
	var v T
	raw, ok, err := tx.Get(ctx, table, key)
	if err != nil || !ok {
		return v, false, err
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, false, err
	}
	return v, true, nil
}

// getMany reads records of one table of the bot's queue inside a
// transaction, in one round trip; an absent record is nil.
func getMany[T any](ctx context.Context, tx *tables.Tx, table string, keys []string) ([]*T, error) {
	raws, oks, err := tx.GetMany(ctx, table, keys...)
	if err != nil {
		return nil, err
	}
	out := make([]*T, len(keys))
	for i, raw := range raws {
		if !oks[i] {
			continue
		}
		out[i] = new(T)
		if err := json.Unmarshal(raw, out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func putJSON(tx *tables.Tx, table, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Put(table, key, raw)
}

// update runs fn as a transaction on the bot's queue.
func (b *Bot) update(ctx context.Context, fn func(ctx context.Context, tx *tables.Tx) error) error {
	return tables.Update(ctx, b.c, b.cfg.Queue, fn, nil)
}

// readJSON reads a record of the bot's queue outside a transaction.
func readJSON[T any](ctx context.Context, b *Bot, table, key string) (T, bool, error) {
	var v T
	raw, ok, err := tables.New(b.c, b.cfg.Queue, table).Get(ctx, key)
	if err != nil || !ok {
		return v, false, err
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, false, err
	}
	return v, true, nil
}

// remember records chat as where player's notifications go.
func (b *Bot) remember(ctx context.Context, player string, chat int64) error {
	return b.update(ctx, func(ctx context.Context, tx *tables.Tx) error {
		r, _, err := getJSON[chatRecord](ctx, tx, tableChats, player)
		if err != nil {
			return err
		}
		if r.Chat == chat {
			return nil
		}
		r.Chat = chat
		return putJSON(tx, tableChats, player, r)
	})
}
