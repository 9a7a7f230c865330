package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/projection"
)

const help = "Guess the secret six emojis.\n/rooms – pick a room and play\n/me – balances and recent guesses\n/top – leaderboard of your game\n/help – this text"

// Handle processes one update; failures are logged and, where the user
// should know, told to them.
func (b *Bot) Handle(ctx context.Context, u Update) {
	var err error
	switch {
	case u.Message != nil && u.Message.From != nil:
		err = b.command(ctx, u.Message)
	case u.CallbackQuery != nil && u.CallbackQuery.Message != nil:
		err = b.press(ctx, u.CallbackQuery)
	}
	if err != nil && ctx.Err() == nil {
		b.log.Warn("bot: update", "update", u.UpdateID, "err", err)
	}
}

// player signs the Telegram user in once and remembers their player id.
func (b *Bot) player(ctx context.Context, u User) (string, error) {
	b.mu.Lock()
	id, ok := b.players[u.ID]
	b.mu.Unlock()
	if ok {
		return id, nil
	}
	name := u.FirstName
	if name == "" {
		name = u.Username
	}
	if len([]rune(name)) > 32 {
		name = string([]rune(name)[:32])
	}
	p, _, err := b.e.SignIn(ctx, codemojex.Identity{Provider: "telegram", Subject: strconv.FormatInt(u.ID, 10), Name: name})
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	b.players[u.ID] = p.ID
	b.mu.Unlock()
	return p.ID, nil
}

func (b *Bot) send(ctx context.Context, chat int64, text string, kb *Markup) (Message, error) {
	params := map[string]any{"chat_id": chat, "text": text}
	if kb != nil {
		params["reply_markup"] = kb
	}
	var m Message
	err := b.api.call(ctx, chat, "sendMessage", params, &m)
	return m, err
}

func (b *Bot) command(ctx context.Context, m *Message) error {
	cmd, _, _ := strings.Cut(strings.TrimSpace(m.Text), " ")
	cmd, _, _ = strings.Cut(cmd, "@")
	chat := m.Chat.ID
	switch cmd {
	case "/start":
		if _, err := b.player(ctx, *m.From); err != nil {
			_, _ = b.send(ctx, chat, "Sorry, you could not be signed in.", nil)
			return err
		}
		_, err := b.send(ctx, chat, "Welcome to codemojex!\n"+help, nil)
		return err
	case "/help":
		_, err := b.send(ctx, chat, help, nil)
		return err
	case "/rooms":
		return b.rooms(ctx, chat)
	case "/me":
		return b.me(ctx, chat, *m.From)
	case "/top":
		return b.top(ctx, chat)
	default:
		_, err := b.send(ctx, chat, "Unknown command.\n"+help, nil)
		return err
	}
}

func (b *Bot) rooms(ctx context.Context, chat int64) error {
	rs, err := b.e.Rooms(ctx)
	if err != nil {
		return err
	}
	if len(rs) == 0 {
		_, err = b.send(ctx, chat, "No rooms yet.", nil)
		return err
	}
	kb := &Markup{}
	var sb strings.Builder
	sb.WriteString("Rooms:\n")
	for _, r := range rs {
		cur := "keys"
		if r.Free {
			cur = "clips"
		}
		fmt.Fprintf(&sb, "• %s — fee %d %s, prize %d 💎\n", r.Name, r.Fee, cur, r.Prize)
		kb.InlineKeyboard = append(kb.InlineKeyboard, []Button{{Text: "Join " + r.Name, CallbackData: "j:" + r.ID}})
	}
	_, err = b.send(ctx, chat, sb.String(), kb)
	return err
}

func (b *Bot) me(ctx context.Context, chat int64, u User) error {
	pid, err := b.player(ctx, u)
	if err != nil {
		return err
	}
	w, err := b.e.Wallet(ctx, pid)
	if err != nil {
		return err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "🔑 %d keys · 📎 %d clips · 💎 %d diamonds\n", w.Keys, w.Clips, w.Diamonds)
	b.mu.Lock()
	ids := append([]string(nil), b.recent[pid]...)
	b.mu.Unlock()
	gs, err := b.e.Guesses(ctx, pid, ids)
	if err != nil {
		return err
	}
	for _, g := range gs {
		fmt.Fprintf(&sb, "%s — %s", strings.Join(b.glyphs(ctx, g.Game, g.Codes), " "), g.Status)
		if g.ScoredMS > 0 && !g.Sealed {
			fmt.Fprintf(&sb, " %d%%", g.Pct)
		}
		sb.WriteString("\n")
	}
	_, err = b.send(ctx, chat, sb.String(), nil)
	return err
}

func (b *Bot) top(ctx context.Context, chat int64) error {
	b.mu.Lock()
	c := b.compose[chat]
	b.mu.Unlock()
	if c == nil || b.cfg.Views == nil {
		_, err := b.send(ctx, chat, "Join a game first (/rooms).", nil)
		return err
	}
	text := "No scores yet."
	err := b.cfg.Views.Boards.Read(ctx, func(bs *views.Boards, _ projection.Checkpoint) {
		if bd := bs.Games[c.game]; bd != nil {
			if rows := bd.Leaderboard(10); len(rows) > 0 {
				var sb strings.Builder
				for _, r := range rows {
					fmt.Fprintf(&sb, "%d. %s — %d%%\n", r.Rank, r.Name, r.Pct)
				}
				text = sb.String()
			}
		}
	})
	if err != nil {
		return err
	}
	_, err = b.send(ctx, chat, text, nil)
	return err
}

// tell maps an engine refusal to a line fit to show; other errors get a
// generic apology.
func tell(err error) string {
	var ce *rules.CodesError
	switch {
	case errors.As(err, &ce):
		return ce.Error()
	case errors.Is(err, codemojex.ErrInsufficient):
		return "Not enough balance for this guess."
	case errors.Is(err, codemojex.ErrClosed), errors.Is(err, codemojex.ErrExpired):
		return "This game has ended; /rooms to play the next one."
	case errors.Is(err, codemojex.ErrNotFound):
		return "Not found; try /rooms."
	}
	return "Something went wrong; please try again."
}
