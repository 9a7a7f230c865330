package bot_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/echomqtest"
)

// TestWholeGame plays a game through commands and button presses against
// the fake Bot API: two players sign in, list rooms, join, compose (with
// undo and clear; each step edits the keyboard message) and submit; one
// guesses wrong, the other cracks the code. Each guess's score reaches its
// player once, the crack's settlement reaches both players once (the
// winner with the prize), and replaying every event through a second
// notifier group sends nothing more.
func TestWholeGame(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	ctx := context.Background()
	room, err := h.e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Zoo", Cells: 8, Prize: 500})
	require.NoError(t, err)
	const ann, bob = 201, 202

	keyboards := map[int64]call{}
	for _, u := range []int64{ann, bob} {
		h.text(u, "/start")
		h.api.await(t, "sendMessage", u, "Welcome")
		h.text(u, "/rooms")
		rooms := h.api.await(t, "sendMessage", u, "Zoo")
		require.Equal(t, []string{"j:" + room.ID}, buttons(rooms))
		h.press(u, rooms.MsgID, "j:"+room.ID)
		require.Equal(t, "Joined!", h.lastAnswer())
		keyboards[u] = h.keyboard(u)
	}
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
	set, err := h.e.Set(g.Set)
	require.NoError(t, err)
	glyph := func(code string) string {
		cell, ok := set.Cell(rules.Code(code))
		require.True(t, ok)
		return cell.Glyph
	}
	for _, u := range []int64{ann, bob} {
		require.Equal(t, want, buttons(keyboards[u]), "the game's cells, then undo, clear, submit")
		require.Contains(t, keyboards[u].Text(), "🎮 Zoo · prize 500 💎 · fee 1 keys · ends in ")
	}
	secret := h.secret(g.ID)
	wrong := slices.Clone(secret)
	slices.Reverse(wrong)

	// compose presses codes on u's keyboard and checks each edit.
	compose := func(u int64, codes []string) {
		msg := keyboards[u].MsgID
		for i, c := range codes {
			h.press(u, msg, "p:"+c)
			ed := h.api.await(t, "editMessageText", u, "("+strconv.Itoa(i+1)+"/6)")
			require.EqualValues(t, msg, ed.Params["message_id"])
			require.Contains(t, ed.Text(), glyph(c))
			require.Equal(t, want, buttons(ed))
		}
	}

	// Bob: a false start cleared, a full guess, a refused seventh pick, an
	// undo, then the wrong guess submitted.
	h.press(bob, keyboards[bob].MsgID, "p:"+wrong[0])
	h.press(bob, keyboards[bob].MsgID, "c")
	h.api.await(t, "editMessageText", bob, "(0/6)")
	h.press(bob, keyboards[bob].MsgID, "s")
	require.Contains(t, h.lastAnswer(), "Pick 6")
	compose(bob, wrong)
	extra := slices.DeleteFunc(slices.Clone(g.Keyboard), func(c string) bool { return slices.Contains(wrong, c) })[0]
	h.press(bob, keyboards[bob].MsgID, "p:"+extra)
	require.Contains(t, h.lastAnswer(), "full")
	h.press(bob, keyboards[bob].MsgID, "u")
	h.api.await(t, "editMessageText", bob, "(5/6)")
	h.press(bob, keyboards[bob].MsgID, "p:"+wrong[5])
	h.press(bob, keyboards[bob].MsgID, "s")
	require.Equal(t, "Submitted!", h.lastAnswer())
	h.api.await(t, "editMessageText", bob, "Submitted")
	h.api.await(t, "sendMessage", bob, "scored")
	require.NoError(t, h.views.Sync(ctx))
	h.text(bob, "/top")
	top := h.api.await(t, "sendMessage", bob, "Leaderboard")
	require.Contains(t, top.Text(), "1. u202 — ")

	// Ann cracks it.
	compose(ann, secret)
	h.press(ann, keyboards[ann].MsgID, "s")
	h.api.await(t, "sendMessage", ann, "(100%)")
	annOver := h.api.await(t, "sendMessage", ann, "is over")
	bobOver := h.api.await(t, "sendMessage", bob, "is over")
	require.Contains(t, annOver.Text(), "the code was cracked")
	require.Contains(t, annOver.Text(), "You placed #1 of 2 with 600 points and won 500 💎!")
	for _, over := range []call{annOver, bobOver} {
		require.Contains(t, over.Text(), "Winners: u201 +500 💎.")
		require.Contains(t, over.Text(), "Next game: /rooms")
	}
	require.Regexp(t, `You placed #2 of 2 with \d+ points\.|You did not score above 0 this game\.`, bobOver.Text())
	for _, c := range secret {
		require.Contains(t, bobOver.Text(), glyph(c), "the code revealed")
	}
	w, err := h.e.Wallet(ctx, h.player(ann))
	require.NoError(t, err)
	require.EqualValues(t, 500, w.Diamonds)

	// /me lists the guess with its points.
	h.text(bob, "/me")
	me := h.api.await(t, "sendMessage", bob, "diamonds")
	require.Contains(t, me.Text(), "9 keys")
	require.Contains(t, me.Text(), glyph(wrong[0]))
	require.Contains(t, me.Text(), "scored")
	require.Contains(t, me.Text(), "Player id: "+h.player(bob), "for the operator")

	counts := func() map[string]int {
		h.awaitOutboxIdle()
		return map[string]int{
			"ann scored": len(h.api.to("sendMessage", ann, "🎯")), "bob scored": len(h.api.to("sendMessage", bob, "🎯")),
			"ann over": len(h.api.to("sendMessage", ann, "is over")), "bob over": len(h.api.to("sendMessage", bob, "is over")),
		}
	}
	once := map[string]int{"ann scored": 1, "bob scored": 1, "ann over": 1, "bob over": 1}
	require.Equal(t, once, counts())

	// Replay: a second notifier reads every event again from the head, as
	// a redelivery would; nothing more is sent.
	for _, s := range []string{codemojex.StreamGuessScored, codemojex.StreamGameSettled} {
		_, err := h.e.Stream(s).Group("again").Create(ctx, echomq.StartHead)
		require.NoError(t, err)
	}
	again, err := bot.New(h.e, &bot.Config{Token: "123:abc", ServerURL: h.api.srv.URL, NotifyGroup: "again", Logger: quiet})
	require.NoError(t, err)
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- again.Serve(rctx) }()
	require.Eventually(t, func() bool {
		for _, s := range []string{codemojex.StreamGuessScored, codemojex.StreamGameSettled} {
			gs, err := h.e.Stream(s).Groups(ctx)
			require.NoError(t, err)
			for _, g := range gs {
				if g.Name == "again" && (g.Lag != 0 || g.Pending != 0 || g.EntriesRead == 0) {
					return false
				}
			}
		}
		return true
	}, 20*time.Second, 10*time.Millisecond, "the replay read and acknowledged every event")
	require.Equal(t, once, counts())
	stop()
	require.NoError(t, echomqtest.Recv(t, done, 30*time.Second, "the bot to stop"))
}

// player resolves a Telegram user to their player, as the bot does.
func (h *harness) player(u int64) string {
	p, _, err := h.e.SignIn(context.Background(), codemojex.Identity{Provider: "telegram", Subject: strconv.FormatInt(u, 10)})
	require.NoError(h.t, err)
	return p.ID
}

// awaitOutboxIdle waits until the outbox has nothing waiting, in flight
// or backing off.
func (h *harness) awaitOutboxIdle() {
	h.t.Helper()
	require.Eventually(h.t, func() bool {
		st, err := h.bot.Outbox().Stats(context.Background())
		require.NoError(h.t, err)
		return st.Waiting+st.Active+st.Delayed+st.Backoff == 0
	}, 20*time.Second, 10*time.Millisecond)
}

func codemojexRoom(name string) codemojex.RoomSpec { return codemojex.RoomSpec{Name: name} }
