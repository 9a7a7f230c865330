package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/tables"
)

// guessLen is how many codes a guess holds.
const guessLen = 6

// glyphs shows codes as their game's emojis (the code itself if the set
// does not know it).
func (b *Bot) glyphs(ctx context.Context, game string, codes []string) []string {
	var set *rules.Set
	if g, err := b.e.Game(ctx, game); err == nil {
		set, _ = b.e.Set(g.Set)
	}
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = c
		if set != nil {
			if cell, ok := set.Cell(rules.Code(c)); ok {
				out[i] = cell.Glyph
			}
		}
	}
	return out
}

// render is the compose message: the partial guess and the game's
// keyboard, picked cells marked, then undo, clear and submit.
func (b *Bot) render(ctx context.Context, game string, picks []string) (string, *models.InlineKeyboardMarkup, error) {
	g, err := b.e.Game(ctx, game)
	if err != nil {
		return "", nil, err
	}
	shown := b.glyphs(ctx, game, picks)
	for len(shown) < guessLen {
		shown = append(shown, "▫️")
	}
	room := "Game"
	if r, err := b.e.Room(ctx, g.Room); err == nil {
		room = r.Name
	}
	left := time.UnixMilli(g.EndsMS).Sub(b.e.Now()).Round(time.Minute)
	ends := "ends in " + strings.TrimSuffix(left.String(), "0s")
	if left <= 0 {
		ends = "ending"
	}
	text := fmt.Sprintf("🎮 %s · prize %d 💎 · fee %d %s · %s\nYour guess: %s\n(%d/%d) pick emojis, then submit.",
		room, g.Prize, g.Fee, g.Currency, ends, strings.Join(shown, " "), len(picks), guessLen)
	glyphs := b.glyphs(ctx, game, g.Keyboard)
	kb := &models.InlineKeyboardMarkup{}
	var row []models.InlineKeyboardButton
	for i, code := range g.Keyboard {
		label := glyphs[i]
		if slices.Contains(picks, code) {
			label = "✔" + label
		}
		row = append(row, models.InlineKeyboardButton{Text: label, CallbackData: "p:" + code})
		if len(row) == 6 {
			kb.InlineKeyboard, row = append(kb.InlineKeyboard, row), nil
		}
	}
	if row != nil {
		kb.InlineKeyboard = append(kb.InlineKeyboard, row)
	}
	kb.InlineKeyboard = append(kb.InlineKeyboard, []models.InlineKeyboardButton{
		{Text: "⌫ Undo", CallbackData: "u"}, {Text: "✖ Clear", CallbackData: "c"}, {Text: "✅ Submit", CallbackData: "s"},
	})
	return text, kb, nil
}

// answer answers a button press (the client stops its spinner); text, if
// any, shows as a toast.
func (b *Bot) answer(ctx context.Context, q *models.CallbackQuery, text string) error {
	return b.call(ctx, 0, "answerCallbackQuery", func(ctx context.Context) error {
		_, err := b.tg.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{CallbackQueryID: q.ID, Text: text})
		return err
	})
}

// edit replaces the compose message's text and keyboard; an edit that
// changes nothing (a repeated press) is not an error.
func (b *Bot) edit(ctx context.Context, chat int64, msg int, text string, kb *models.InlineKeyboardMarkup) error {
	err := b.call(ctx, chat, "editMessageText", func(ctx context.Context) error {
		_, err := b.tg.EditMessageText(ctx, &tgbot.EditMessageTextParams{ChatID: chat, MessageID: msg, Text: text, ReplyMarkup: kb})
		return err
	})
	if err != nil && notModified(err) {
		return nil
	}
	return err
}

// press handles an inline button: j:<room> joins, p:<code> picks, u undoes,
// c clears, s submits. The compose record changes in a transaction, so
// presses racing in (webhooks run concurrently) each apply once.
func (b *Bot) press(ctx context.Context, q *models.CallbackQuery) error {
	chat, msgID := q.Message.Message.Chat.ID, q.Message.Message.ID
	pid, err := b.player(ctx, q.From)
	if err != nil {
		return errors.Join(err, b.answer(ctx, q, tell(err)))
	}
	kind, arg := parseButton(q.Data)
	if kind == buttonJoin {
		return b.join(ctx, q, pid, arg)
	}
	var c composeRecord
	var note string
	var picks []string
	err = b.update(ctx, func(ctx context.Context, tx *tables.Tx) error {
		var ok bool
		var err error
		note, picks = "", nil
		c, ok, err = getJSON[composeRecord](ctx, tx, tableCompose, chatKey(chat))
		if err != nil {
			return err
		}
		switch {
		case !ok || c.Msg != msgID:
			note = "This keyboard is stale; /rooms to play."
			return nil
		case c.Player != pid:
			// In a group chat only the player who joined composes on it.
			note = "This keyboard belongs to another player."
			return nil
		}
		switch code, isPick := arg, kind == buttonPick; {
		case isPick && slices.Contains(c.Picks, code):
			note = "Already picked."
		case isPick && len(c.Picks) >= guessLen:
			note = "Your guess is full: submit or undo."
		case isPick:
			c.Picks = append(c.Picks, code)
		case kind == buttonUndo && len(c.Picks) > 0:
			c.Picks = c.Picks[:len(c.Picks)-1]
		case kind == buttonUndo:
			note = "Nothing to undo."
		case kind == buttonClear:
			c.Picks = nil
		case kind == buttonSubmit && len(c.Picks) != guessLen:
			note = fmt.Sprintf("Pick %d emojis first.", guessLen)
		case kind == buttonSubmit:
			// Take the picks, so a double tap submits once.
			picks, c.Picks = c.Picks, nil
		default:
			note = "Unknown button."
		}
		if note != "" {
			return nil
		}
		return putJSON(tx, tableCompose, chatKey(chat), c)
	})
	if err != nil {
		return errors.Join(err, b.answer(ctx, q, tell(err)))
	}
	if note != "" {
		return b.answer(ctx, q, note)
	}
	if picks != nil {
		return b.submit(ctx, q, c, picks)
	}
	text, kb, err := b.render(ctx, c.Game, c.Picks)
	if err == nil {
		err = b.edit(ctx, chat, c.Msg, text, kb)
	}
	return errors.Join(err, b.answer(ctx, q, ""))
}

// join joins the room's game and queues its keyboard message; the outbox
// records the message's id in the chat's compose record once sent.
func (b *Bot) join(ctx context.Context, q *models.CallbackQuery, pid, room string) error {
	chat := q.Message.Message.Chat.ID
	j, err := b.e.Join(ctx, pid, room)
	if err != nil {
		return errors.Join(err, b.answer(ctx, q, tell(err)))
	}
	text, kb, err := b.render(ctx, j.Game, nil)
	if err != nil {
		return errors.Join(err, b.answer(ctx, q, tell(err)))
	}
	job, err := b.c.MintID(ctx, b.e.Shard(0).Queue(), codemojex.BrandJob)
	if err != nil {
		return errors.Join(err, b.answer(ctx, q, tell(err)))
	}
	err = b.update(ctx, func(ctx context.Context, tx *tables.Tx) error {
		if err := putJSON(tx, tableCompose, chatKey(chat), composeRecord{Player: pid, Game: j.Game, Room: room, Job: job.String()}); err != nil {
			return err
		}
		cr, _, err := getJSON[chatRecord](ctx, tx, tableChats, pid)
		if err != nil {
			return err
		}
		cr.Chat = chat
		return putJSON(tx, tableChats, pid, cr)
	})
	if err == nil {
		err = b.post(ctx, message{Chat: chat, Text: text, Keyboard: kb, Compose: true}, job)
	}
	if err != nil {
		return errors.Join(err, b.answer(ctx, q, tell(err)))
	}
	return b.answer(ctx, q, "Joined!")
}

// submit hands the taken picks to the engine; a refusal gives them back.
func (b *Bot) submit(ctx context.Context, q *models.CallbackQuery, c composeRecord, picks []string) error {
	chat := q.Message.Message.Chat.ID
	rc, err := b.e.Submit(ctx, c.Player, c.Game, picks)
	if err != nil {
		restore := b.update(ctx, func(ctx context.Context, tx *tables.Tx) error {
			now, ok, err := getJSON[composeRecord](ctx, tx, tableCompose, chatKey(chat))
			if err != nil || !ok || now.Msg != c.Msg || len(now.Picks) > 0 {
				return err
			}
			now.Picks = picks
			return putJSON(tx, tableCompose, chatKey(chat), now)
		})
		return errors.Join(restore, b.answer(ctx, q, tell(err)))
	}
	err = b.update(ctx, func(ctx context.Context, tx *tables.Tx) error {
		cr, _, err := getJSON[chatRecord](ctx, tx, tableChats, c.Player)
		if err != nil {
			return err
		}
		cr.Chat = chat
		cr.Recent = append(cr.Recent, rc.Guess)
		cr.Recent = cr.Recent[max(0, len(cr.Recent)-recentGuesses):]
		return putJSON(tx, tableChats, c.Player, cr)
	})
	if err != nil {
		return errors.Join(err, b.answer(ctx, q, "Submitted!"))
	}
	text, kb, err := b.render(ctx, c.Game, nil)
	if err != nil {
		return errors.Join(err, b.answer(ctx, q, "Submitted!"))
	}
	left := rc.Balance.Of(rc.Currency)
	text = fmt.Sprintf("Submitted %s (−%d %s, %d left); scoring…\n\n%s", strings.Join(b.glyphs(ctx, c.Game, picks), " "), rc.Charged, rc.Currency, left, text)
	return errors.Join(b.edit(ctx, chat, c.Msg, text, kb), b.answer(ctx, q, "Submitted!"))
}
