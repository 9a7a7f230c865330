package bot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/codemojex/rules"
)

// TestBlindEndMessage: a blind game closed by its operator sends every
// player one end-of-game message with the facts of the web app's end
// screen: the result, the revealed code, the commitment, the salt and the
// check, the winners with their prizes, the player's own rank and
// winnings, and the way to the next game.
func TestBlindEndMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	ctx := context.Background()
	room, err := h.e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Vault", Mode: rules.Blind, Cells: 8, Prize: 301, Duration: time.Hour})
	require.NoError(t, err)
	const cy, dee, eve = 301, 302, 303
	for _, u := range []int64{cy, dee, eve} {
		h.text(u, "/start")
		h.api.await(t, "sendMessage", u, "Welcome")
		h.text(u, "/rooms")
		rooms := h.api.await(t, "sendMessage", u, "Vault")
		h.press(u, rooms.MsgID, "j:"+room.ID)
		h.keyboard(u)
	}
	r, err := h.e.Room(ctx, room.ID)
	require.NoError(t, err)
	secret := h.secret(r.Game)
	// Cy and Dee tie at the top with the secret; Eve guesses nothing.
	for _, u := range []int64{cy, dee} {
		_, err := h.e.Submit(ctx, h.player(u), r.Game, secret)
		require.NoError(t, err)
		h.api.await(t, "sendMessage", u, "blind game")
	}
	st, err := h.e.Close(ctx, r.Game, codemojex.ReasonOperator)
	require.NoError(t, err)
	g, err := h.e.Game(ctx, r.Game)
	require.NoError(t, err)
	set, err := h.e.Set(g.Set)
	require.NoError(t, err)
	var glyphs []string
	for _, c := range g.Secret {
		cell, _ := set.Cell(rules.Code(c))
		glyphs = append(glyphs, cell.Glyph)
	}
	won := map[string]int64{}
	for _, p := range st.Payouts {
		won[p.Player] = p.Amount
	}
	require.Equal(t, map[string]int64{h.player(cy): 151, h.player(dee): 150}, won, "the odd diamond to the first to reach the top")

	for _, u := range []int64{cy, dee, eve} {
		over := h.api.await(t, "sendMessage", u, "is over").Text()
		for _, fact := range []string{
			"🏁 Vault is over: closed by the operator.",
			"The code: " + strings.Join(glyphs, " "),
			"Commitment (published at the start): " + g.Commitment,
			"Salt (nonce): " + g.Salt,
			"✅ matches the commitment",
			"Winners: u301 +151 💎, u302 +150 💎.",
			"Next game: /rooms",
		} {
			require.Contains(t, over, fact, "user %d", u)
		}
		switch u {
		case cy:
			require.Contains(t, over, "You placed #1 of 2 with 600 points and won 151 💎!")
		case dee:
			require.Contains(t, over, "You placed #2 of 2 with 600 points and won 150 💎!")
		case eve:
			require.Contains(t, over, "You made no guess this game.")
		}
	}
	h.awaitOutboxIdle()
	for _, u := range []int64{cy, dee, eve} {
		require.Len(t, h.api.to("sendMessage", u, "is over"), 1, "user %d: exactly once", u)
	}
}

// TestConvert: /convert turns diamonds into keys in tens, says why it
// refuses, and converts every whole ten without an amount.
func TestConvert(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	ctx := context.Background()
	const u = 401
	h.text(u, "/start")
	h.api.await(t, "sendMessage", u, "Welcome")
	p := h.player(u)
	before, err := h.e.Wallet(ctx, p)
	require.NoError(t, err)
	_, err = h.e.Grant(ctx, p, codemojex.Diamonds, 35)
	require.NoError(t, err)
	for _, step := range []struct{ cmd, says string }{
		{"/convert 15", "in tens"},
		{"/convert 100", "You do not have 100 💎"},
		{"/convert x", "how many diamonds"},
		{"/convert 10", "Converted 10 💎 into 1 🔑"},
		{"/convert", "Converted 20 💎 into 2 🔑"},
		{"/convert", "You have 5 💎"},
	} {
		h.text(u, step.cmd)
		h.api.await(t, "sendMessage", u, step.says)
	}
	w, err := h.e.Wallet(ctx, p)
	require.NoError(t, err)
	require.Equal(t, before.Keys+3, w.Keys)
	require.EqualValues(t, 5, w.Diamonds)
}
