package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/echomq/echomq/codemojex/rules"
)

// guessLen is how many codes a guess holds.
const guessLen = 6

// compose is a chat's guess in the making, shown in one message that is
// edited as it changes.
type compose struct {
	player, game, room string
	msg                int64
	keyboard           []string
	picks              []string
}

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

// render is the compose message: the partial guess and the keyboard,
// picked cells marked.
func (b *Bot) render(ctx context.Context, c *compose, picks []string) (string, *Markup) {
	shown := b.glyphs(ctx, c.game, picks)
	for len(shown) < guessLen {
		shown = append(shown, "▫️")
	}
	text := fmt.Sprintf("Your guess: %s\n(%d/%d) pick emojis, then submit.", strings.Join(shown, " "), len(picks), guessLen)
	glyphs := b.glyphs(ctx, c.game, c.keyboard)
	kb := &Markup{}
	var row []Button
	for i, code := range c.keyboard {
		label := glyphs[i]
		for _, p := range picks {
			if p == code {
				label = "✔" + label
			}
		}
		row = append(row, Button{Text: label, CallbackData: "p:" + code})
		if len(row) == 6 {
			kb.InlineKeyboard, row = append(kb.InlineKeyboard, row), nil
		}
	}
	if row != nil {
		kb.InlineKeyboard = append(kb.InlineKeyboard, row)
	}
	kb.InlineKeyboard = append(kb.InlineKeyboard, []Button{{Text: "⌫ Undo", CallbackData: "u"}, {Text: "✖ Clear", CallbackData: "c"}, {Text: "✅ Submit", CallbackData: "s"}})
	return text, kb
}

func (b *Bot) answer(ctx context.Context, q *CallbackQuery, text string) error {
	return b.api.call(ctx, 0, "answerCallbackQuery", map[string]any{"callback_query_id": q.ID, "text": text}, nil)
}

func (b *Bot) edit(ctx context.Context, chat, msg int64, text string, kb *Markup) error {
	params := map[string]any{"chat_id": chat, "message_id": msg, "text": text}
	if kb != nil {
		params["reply_markup"] = kb
	}
	return b.api.call(ctx, chat, "editMessageText", params, nil)
}

// press handles an inline button: j:<room> joins, p:<code> picks, u undoes,
// c clears, s submits.
func (b *Bot) press(ctx context.Context, q *CallbackQuery) error {
	chat := q.Message.Chat.ID
	pid, err := b.player(ctx, q.From)
	if err != nil {
		_ = b.answer(ctx, q, tell(err))
		return err
	}
	if room, ok := strings.CutPrefix(q.Data, "j:"); ok {
		return b.join(ctx, q, pid, room)
	}
	b.mu.Lock()
	c := b.compose[chat]
	var note string
	switch {
	case c == nil || c.msg != q.Message.MessageID:
		c, note = nil, "This keyboard is stale; /rooms to play."
	case c.player != pid:
		// In a group chat only the player who joined composes on it.
		c, note = nil, "This keyboard belongs to another player."
	case strings.HasPrefix(q.Data, "p:"):
		code := q.Data[2:]
		for _, p := range c.picks {
			if p == code {
				note = "Already picked."
			}
		}
		if note == "" && len(c.picks) >= guessLen {
			note = "Your guess is full: submit or undo."
		}
		if note == "" {
			c.picks = append(c.picks, code)
		}
	case q.Data == "u" && len(c.picks) > 0:
		c.picks = c.picks[:len(c.picks)-1]
	case q.Data == "c":
		c.picks = nil
	case q.Data == "s":
	default:
		note = "Nothing to undo."
	}
	var picks []string
	if c != nil {
		picks = append(picks, c.picks...)
	}
	b.mu.Unlock()
	if note != "" || c == nil {
		return b.answer(ctx, q, note)
	}
	if q.Data == "s" {
		return b.submit(ctx, q, c, picks)
	}
	text, kb := b.render(ctx, c, picks)
	if err := b.edit(ctx, chat, c.msg, text, kb); err != nil {
		return err
	}
	return b.answer(ctx, q, "")
}

func (b *Bot) join(ctx context.Context, q *CallbackQuery, pid, room string) error {
	chat := q.Message.Chat.ID
	j, err := b.e.Join(ctx, pid, room)
	if err != nil {
		_ = b.answer(ctx, q, tell(err))
		return err
	}
	g, err := b.e.Game(ctx, j.Game)
	if err != nil {
		return err
	}
	c := &compose{player: pid, game: j.Game, room: room, keyboard: g.Keyboard}
	text, kb := b.render(ctx, c, nil)
	m, err := b.send(ctx, chat, text, kb)
	if err != nil {
		return err
	}
	c.msg = m.MessageID
	b.mu.Lock()
	b.compose[chat] = c
	b.mu.Unlock()
	return b.answer(ctx, q, "Joined!")
}

func (b *Bot) submit(ctx context.Context, q *CallbackQuery, c *compose, picks []string) error {
	if len(picks) != guessLen {
		return b.answer(ctx, q, fmt.Sprintf("Pick %d emojis first.", guessLen))
	}
	rc, err := b.e.Submit(ctx, c.player, c.game, picks)
	if err != nil {
		return b.answer(ctx, q, tell(err))
	}
	b.mu.Lock()
	r := append(b.recent[c.player], rc.Guess)
	b.recent[c.player] = r[max(0, len(r)-5):]
	c.picks = nil
	b.mu.Unlock()
	text, kb := b.render(ctx, c, nil)
	left := rc.Balance.Of(rc.Currency)
	text = fmt.Sprintf("Submitted %s (−%d %s, %d left); scoring…\n\n%s", strings.Join(b.glyphs(ctx, c.game, picks), " "), rc.Charged, rc.Currency, left, text)
	if err := b.edit(ctx, q.Message.Chat.ID, c.msg, text, kb); err != nil {
		return err
	}
	return b.answer(ctx, q, "Submitted!")
}
