package bot_test

import (
	"context"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/echomqtest"
)

// The bot of a game of 3 shards lists a player the rooms of every shard
// and joins a room of another shard than the player's home.
func TestShardedBot(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	client, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	const n = 3
	s, err := codemojex.NewShards(ctx, client, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet, StarterKeys: 10}, n)
	require.NoError(t, err)
	rooms := make([]codemojex.Room, n)
	for k := range n {
		rooms[k], err = s.CreateRoomIn(ctx, codemojex.RoomSpec{Name: "Zoo " + strconv.Itoa(k)}, k)
		require.NoError(t, err)
	}
	v, err := views.NewSharded(s, &views.Config{Block: 100 * time.Millisecond})
	require.NoError(t, err)
	h := &harness{t: t, client: client, url: echomqtest.Shared(t).URL(), e: s.Shard(0), views: v, api: newFakeAPI(t)}
	cfg := bot.Config{
		Token: "123:abc", ServerURL: h.api.srv.URL, WebhookSecret: secret, Views: v, Logger: quiet,
		ChatRate: 1000, ChatBurst: 100, GlobalRate: 1000, Backoff: 10 * time.Millisecond, PollTimeout: 2 * time.Second,
	}
	h.bot, err = bot.NewSharded(s, &cfg)
	require.NoError(t, err)
	require.Equal(t, s.Base()+"-tg", h.bot.Config().Queue)
	var wg sync.WaitGroup
	wg.Go(func() { _ = v.Run(ctx) })
	wg.Go(func() {
		if err := h.bot.Serve(ctx); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		_ = client.Close()
	})

	const u = 7
	home := codemojex.IdentityShard("telegram", strconv.Itoa(u), n)
	h.text(u, "/start")
	h.text(u, "/rooms")
	list := h.api.await(t, "sendMessage", u, "Rooms:")
	require.Len(t, buttons(list), n, "the rooms of every shard")
	other := rooms[(home+1)%n]
	require.Contains(t, buttons(list), "j:"+other.ID)
	require.Contains(t, list.Text(), other.Name)
	h.press(u, list.MsgID, "j:"+other.ID)
	h.keyboard(u)
}
