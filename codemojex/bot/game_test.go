package bot_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/codemojex/rules"
)

// TestTwoPlayersPlay plays a game through commands and button presses:
// each player signs in, lists rooms, joins, composes a guess (with undo
// and clear) and submits it; the keyboard message is edited each step.
func TestTwoPlayersPlay(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	room, err := h.e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Zoo", Cells: 8})
	require.NoError(t, err)

	for _, u := range []int64{201, 202} {
		h.text(u, "/start")
		require.Contains(t, h.last("sendMessage", u).Params["text"], "Welcome")
		h.text(u, "/rooms")
		rooms := h.last("sendMessage", u)
		require.Contains(t, rooms.Params["text"], "Zoo")
		require.Equal(t, []string{"j:" + room.ID}, buttons(rooms))

		h.press(u, rooms.MsgID, "j:"+room.ID)
		game := h.last("sendMessage", u)
		require.Contains(t, game.Params["text"], "(0/6)")
		r, err := h.e.Room(ctx, room.ID)
		require.NoError(t, err)
		g, err := h.e.Game(ctx, r.Game)
		require.NoError(t, err)
		require.Len(t, g.Keyboard, 8)
		var want []string
		for _, c := range g.Keyboard {
			want = append(want, "p:"+c)
		}
		want = append(want, "u", "c", "s")
		require.Equal(t, want, buttons(game), "the game's cells, then undo, clear, submit")

		set, err := h.e.Set(g.Set)
		require.NoError(t, err)
		glyph := func(code string) string {
			cell, ok := set.Cell(ruleCode(code))
			require.True(t, ok)
			return cell.Glyph
		}
		edits := len(h.api.recorded("editMessageText"))
		if u == 202 { // a false start, cleared
			h.press(u, game.MsgID, "p:"+g.Keyboard[7])
			h.press(u, game.MsgID, "c")
			require.Contains(t, h.last("editMessageText", u).Params["text"], "(0/6)")
		}
		for i := range 6 {
			h.press(u, game.MsgID, "p:"+g.Keyboard[i])
			ed := h.last("editMessageText", u)
			require.EqualValues(t, game.MsgID, ed.Params["message_id"])
			require.Contains(t, ed.Params["text"], glyph(g.Keyboard[i]))
			require.Equal(t, want, buttons(ed))
		}
		h.press(u, game.MsgID, "p:"+g.Keyboard[6])
		require.Contains(t, lastAnswer(h), "full")
		h.press(u, game.MsgID, "u")
		require.Contains(t, h.last("editMessageText", u).Params["text"], "(5/6)")
		h.press(u, game.MsgID, "s")
		require.Contains(t, lastAnswer(h), "Pick 6")
		h.press(u, game.MsgID, "p:"+g.Keyboard[5])
		full := h.last("editMessageText", u).Params["text"].(string)
		for _, c := range g.Keyboard[:6] {
			require.Contains(t, full, glyph(c))
		}
		require.Contains(t, full, "(6/6)")

		h.press(u, game.MsgID, "s")
		require.Contains(t, h.last("editMessageText", u).Params["text"], "Submitted")
		require.Greater(t, len(h.api.recorded("editMessageText")), edits)
		w, err := h.e.Wallet(ctx, playerOf(t, h, u))
		require.NoError(t, err)
		require.EqualValues(t, 9, w.Keys, "one guess charged")

		h.text(u, "/me")
		me := h.last("sendMessage", u).Params["text"].(string)
		require.Contains(t, me, "9 keys")
		require.Contains(t, me, glyph(g.Keyboard[0]))
	}
	r, err := h.e.Room(ctx, room.ID)
	require.NoError(t, err)
	require.Equal(t, 1, r.Games, "both players in one game")
}

// TestWebhookWrongSecret refuses a request without the right secret
// token: 401, no Bot API call, no join.
func TestWebhookWrongSecret(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	room, err := h.e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Zoo"})
	require.NoError(t, err)
	join := bot.Update{CallbackQuery: &bot.CallbackQuery{ID: "q", From: bot.User{ID: 7, FirstName: "eve"}, Message: &bot.Message{MessageID: 1, Chat: bot.Chat{ID: 7}}, Data: "j:" + room.ID}}
	for _, tok := range []string{"", "wrong", secret + "x", strings.ToUpper(secret)} {
		require.Equal(t, http.StatusUnauthorized, h.hook(join, tok), "token %q", tok)
	}
	h.api.mu.Lock()
	require.Empty(t, h.api.calls)
	h.api.mu.Unlock()
	r, err := h.e.Room(ctx, room.ID)
	require.NoError(t, err)
	require.Empty(t, r.Game, "no game started")
	require.Zero(t, r.Games)
}

func lastAnswer(h *harness) string {
	cs := h.api.recorded("answerCallbackQuery")
	require.NotEmpty(h.t, cs)
	s, _ := cs[len(cs)-1].Params["text"].(string)
	return s
}

func ruleCode(s string) rules.Code { return rules.Code(s) }

// playerOf resolves a Telegram user to their player, as the bot does.
func playerOf(t *testing.T, h *harness, user int64) string {
	p, _, err := h.e.SignIn(context.Background(), codemojex.Identity{Provider: "telegram", Subject: strconv.FormatInt(user, 10)})
	require.NoError(t, err)
	return p.ID
}

func roomSpec() codemojex.RoomSpec { return codemojex.RoomSpec{Name: "Zoo"} }
