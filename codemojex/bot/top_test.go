package bot_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/projection"
)

// TestTop: once both players' guesses are scored, /top lists them from
// the live leaderboard; before joining it points at /rooms.
func TestTop(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	v, err := views.New(h.e, views.Config{Block: 100 * time.Millisecond})
	require.NoError(t, err)
	w, err := h.e.Worker(&lanes.WorkerConfig{Concurrency: 2, Logger: quiet})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = v.Run(ctx) })
	require.NoError(t, w.Start(ctx))
	t.Cleanup(func() {
		require.NoError(t, w.Stop(context.Background()))
		cancel()
		wg.Wait()
	})
	h.bot, err = bot.New(h.e, bot.Config{Token: "1:a", ServerURL: h.api.srv.URL, WebhookSecret: secret, Views: v,
		ChatRate: 1000, ChatBurst: 100, GlobalRate: 1000, Logger: quiet})
	require.NoError(t, err)

	room, err := h.e.CreateRoom(ctx, roomSpec())
	require.NoError(t, err)
	h.text(601, "/top")
	require.Contains(t, h.last("sendMessage", 601).Params["text"], "/rooms")

	var game string
	for _, u := range []int64{601, 602} {
		h.text(u, "/start")
		h.press(u, 1, "j:"+room.ID)
		msg := h.last("sendMessage", u)
		r, err := h.e.Room(ctx, room.ID)
		require.NoError(t, err)
		game = r.Game
		g, err := h.e.Game(ctx, game)
		require.NoError(t, err)
		for _, c := range g.Keyboard[:6] {
			h.press(u, msg.MsgID, "p:"+c)
		}
		h.press(u, msg.MsgID, "s")
		require.Contains(t, h.last("editMessageText", u).Params["text"], "Submitted")
	}
	var rows []views.Row
	require.Eventually(t, func() bool {
		players := 0
		require.NoError(t, v.Boards.Read(ctx, func(bs *views.Boards, _ projection.Checkpoint) {
			if b := bs.Games[game]; b != nil {
				players, rows = len(b.Players), b.Leaderboard(10)
			}
		}))
		return players == 2
	}, 20*time.Second, 10*time.Millisecond, "both players on the board")
	h.text(601, "/top")
	top := h.last("sendMessage", 601).Params["text"].(string)
	if len(rows) == 0 {
		require.Contains(t, top, "No scores yet")
	}
	for _, r := range rows {
		require.Contains(t, top, r.Name)
	}
}
