package bot_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/tables"
)

// TestPruneNotices: notices younger than NoticeTTL stay; a bot whose
// NoticeTTL they outlived deletes them when it starts serving.
func TestPruneNotices(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	ctx := context.Background()
	h.scoredNotice(801)
	notices := tables.New(h.client, h.bot.Config().Queue, "notices")
	keys, err := notices.Keys(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 1, "kept while young")

	short, err := bot.New(h.e, &bot.Config{Token: "1:a", ServerURL: h.api.srv.URL, NotifyGroup: "pruner", NoticeTTL: time.Millisecond, Logger: quiet})
	require.NoError(t, err)
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- short.Serve(sctx) }()
	require.Eventually(t, func() bool {
		keys, err := notices.Keys(ctx)
		require.NoError(t, err)
		return len(keys) == 0
	}, 10*time.Second, 10*time.Millisecond, "pruned")
	stop()
	require.NoError(t, echomqtest.Recv(t, done, 30*time.Second, "the bot to stop"))
}

// TestPrunedNoticeStaysPruned: a notice pruned while its message is on the
// way (sent, its sending not yet recorded) is not written back when the
// outbox records the send: the prune stands.
func TestPrunedNoticeStaysPruned(t *testing.T) {
	t.Parallel()
	h := newHarness(t, bot.Config{})
	ctx := context.Background()
	notices := tables.New(h.client, h.bot.Config().Queue, "notices")
	var pruned atomic.Int32
	h.api.beforeReply(func(c call) {
		if c.Method != "sendMessage" || !strings.Contains(c.Text(), "🎯") {
			return
		}
		keys, err := notices.Keys(ctx)
		if err == nil && len(keys) == 1 {
			err = tables.Update(ctx, h.client, h.bot.Config().Queue, func(_ context.Context, tx *tables.Tx) error {
				return tx.Delete("notices", keys[0])
			}, nil)
		}
		if err != nil {
			t.Errorf("prune the notice: %v", err)
			return
		}
		pruned.Add(1)
	})
	h.scoredNotice(802)
	h.awaitOutboxIdle()
	require.Equal(t, int32(1), pruned.Load(), "the notice was pruned once, mid-send")
	keys, err := notices.Keys(ctx)
	require.NoError(t, err)
	require.Empty(t, keys, "the send's record did not bring the pruned notice back")
}

// scoredNotice has Telegram user u join a fresh room and submit a guess
// that does not win (so the game stays open), and waits for the bot's
// "scored" notice to reach u's chat.
func (h *harness) scoredNotice(u int64) {
	h.t.Helper()
	ctx := context.Background()
	room := h.room("Zoo")
	h.text(u, "/start")
	j, err := h.e.Join(ctx, h.player(u), room)
	require.NoError(h.t, err)
	g, err := h.e.Game(ctx, j.Game)
	require.NoError(h.t, err)
	codes := g.Keyboard[:6]
	if s := h.secret(j.Game); s[0] == codes[0] {
		codes = append([]string{codes[1], codes[0]}, codes[2:]...)
	}
	_, err = h.e.Submit(ctx, h.player(u), j.Game, codes)
	require.NoError(h.t, err)
	h.api.await(h.t, "sendMessage", u, "🎯")
}
