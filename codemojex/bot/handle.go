package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/projection"
)

const help = "Crack the secret code of six emojis.\n/rooms – pick a room and play\n/me – balances and recent guesses\n/top – leaderboard of your game\n/convert N – turn N 💎 into 🔑 (10 💎 = 1 🔑; every whole ten without N)\n/help – this text"

// Handle processes one update; failures are logged and, where the user
// should know, told to them. Updates of other kinds are ignored.
func (b *Bot) Handle(ctx context.Context, u *models.Update) {
	var err error
	switch {
	case u.Message != nil && u.Message.From != nil:
		err = b.command(ctx, u.Message)
	case u.CallbackQuery != nil && u.CallbackQuery.Message.Message != nil:
		err = b.press(ctx, u.CallbackQuery)
	}
	if err != nil && ctx.Err() == nil {
		b.log.Warn("bot: update", "update", u.ID, "err", err)
	}
}

// player signs the Telegram user in (once per process) and returns their
// player id.
func (b *Bot) player(ctx context.Context, u models.User) (string, error) {
	if id, ok := b.players.Load(u.ID); ok {
		return id.(string), nil
	}
	name := strings.TrimSpace(u.FirstName)
	if name == "" {
		name = u.Username
	}
	if r := []rune(name); len(r) > 32 {
		name = string(r[:32])
	}
	p, _, err := b.e.SignIn(ctx, codemojex.Identity{Provider: "telegram", Subject: strconv.FormatInt(u.ID, 10), Name: name})
	if err != nil {
		return "", err
	}
	b.players.Store(u.ID, p.ID)
	return p.ID, nil
}

func (b *Bot) command(ctx context.Context, m *models.Message) error {
	cmd := parseCommand(m.Text)
	chat := m.Chat.ID
	switch cmd {
	case "/start":
		pid, err := b.player(ctx, *m.From)
		if err == nil {
			err = b.remember(ctx, pid, chat)
		}
		if err != nil {
			return errors.Join(err, b.reply(ctx, chat, "Sorry, you could not be signed in; please try /start again.", nil))
		}
		var kb *models.InlineKeyboardMarkup
		if b.cfg.WebAppURL != "" {
			kb = &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "🎮 Play in the app", WebApp: &models.WebAppInfo{URL: b.cfg.WebAppURL}}}}}
		}
		return b.reply(ctx, chat, "Welcome to codemojex!\n"+help, kb)
	case "/help":
		return b.reply(ctx, chat, help, nil)
	case "/rooms":
		return b.rooms(ctx, chat)
	case "/me":
		return b.me(ctx, chat, *m.From)
	case "/top":
		return b.top(ctx, chat)
	case "/convert":
		return b.convert(ctx, chat, *m.From, m.Text)
	}
	if strings.HasPrefix(cmd, "/") {
		return b.reply(ctx, chat, "Unknown command.\n"+help, nil)
	}
	return b.reply(ctx, chat, "Use the buttons to guess, or:\n"+help, nil)
}

func (b *Bot) rooms(ctx context.Context, chat int64) error {
	rs, err := b.e.Rooms(ctx)
	if err != nil {
		return err
	}
	if len(rs) == 0 {
		return b.reply(ctx, chat, "No rooms yet.", nil)
	}
	kb := &models.InlineKeyboardMarkup{}
	var sb strings.Builder
	sb.WriteString("Rooms:\n")
	for _, r := range rs {
		cur := "keys"
		if r.Free {
			cur = "clips"
		}
		fmt.Fprintf(&sb, "• %s — fee %d %s, prize %d 💎\n", r.Name, r.Fee, cur, r.Prize)
		kb.InlineKeyboard = append(kb.InlineKeyboard, []models.InlineKeyboardButton{{Text: "Join " + r.Name, CallbackData: "j:" + r.ID}})
	}
	return b.reply(ctx, chat, sb.String(), kb)
}

func (b *Bot) me(ctx context.Context, chat int64, u models.User) error {
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
	fmt.Fprintf(&sb, "Player id: %s\n", pid)
	cr, _, err := readJSON[chatRecord](ctx, b, tableChats, pid)
	if err != nil {
		return err
	}
	gs, err := b.e.Guesses(ctx, pid, cr.Recent)
	if err != nil {
		return err
	}
	if len(gs) > 0 {
		sb.WriteString("Recent guesses:\n")
	}
	for _, g := range gs {
		fmt.Fprintf(&sb, "%s — %s", strings.Join(b.glyphs(ctx, g.Game, g.Codes), " "), g.Status)
		if g.Status == codemojex.GuessScored && !g.Sealed {
			fmt.Fprintf(&sb, ", %d points (%d%%)", g.Points, g.Pct)
		}
		sb.WriteString("\n")
	}
	return b.reply(ctx, chat, sb.String(), nil)
}

func (b *Bot) top(ctx context.Context, chat int64) error {
	c, ok, err := readJSON[composeRecord](ctx, b, tableCompose, chatKey(chat))
	if err != nil {
		return err
	}
	if !ok || b.cfg.Views == nil {
		return b.reply(ctx, chat, "Join a game first (/rooms).", nil)
	}
	text := "No scores yet."
	err = b.cfg.Views.Boards.Read(ctx, func(bs *views.Boards, _ projection.Checkpoint) {
		if bd := bs.Games[c.Game]; bd != nil {
			if rows := bd.Leaderboard(10); len(rows) > 0 {
				var sb strings.Builder
				sb.WriteString("Leaderboard:\n")
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
	return b.reply(ctx, chat, text, nil)
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
	case errors.Is(err, echomq.ErrInvalidArgument):
		return "That button is not valid any more; try /rooms."
	}
	return "Something went wrong; please try again."
}

// convert turns diamonds into keys: "/convert 20", or "/convert" for every
// whole ten the player holds.
func (b *Bot) convert(ctx context.Context, chat int64, u models.User, text string) error {
	pid, err := b.player(ctx, u)
	if err != nil {
		return err
	}
	_, arg, _ := strings.Cut(strings.TrimSpace(text), " ")
	arg = strings.TrimSpace(arg)
	var n int64
	if arg == "" {
		w, err := b.e.Wallet(ctx, pid)
		if err != nil {
			return err
		}
		n = w.Diamonds / 10 * 10
		if n == 0 {
			return b.reply(ctx, chat, fmt.Sprintf("You have %d 💎: converting takes 10 💎 for each key.", w.Diamonds), nil)
		}
	} else if n, err = strconv.ParseInt(arg, 10, 64); err != nil || n <= 0 {
		return b.reply(ctx, chat, "Say how many diamonds to convert, in tens: /convert 20", nil)
	}
	w, err := b.e.Convert(ctx, pid, n)
	switch {
	case errors.Is(err, codemojex.ErrInsufficient):
		return b.reply(ctx, chat, fmt.Sprintf("You do not have %d 💎 to convert.", n), nil)
	case errors.Is(err, echomq.ErrInvalidArgument):
		return b.reply(ctx, chat, "Diamonds convert in tens (10 💎 = 1 🔑): /convert 20", nil)
	case err != nil:
		return errors.Join(err, b.reply(ctx, chat, "Sorry, that did not go through; please try again.", nil))
	}
	return b.reply(ctx, chat, fmt.Sprintf("💱 Converted %d 💎 into %d 🔑. Wallet: %d keys, %d clips, %d diamonds.", n, n/10, w.Keys, w.Clips, w.Diamonds), nil)
}
