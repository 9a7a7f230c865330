package health_test

import (
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/health"
	"github.com/echomq/echomq/echomqtest"
)

// The health of a sharded game adds up its shards: the backlog of every
// shard's guess queue, then the guesses scored in every shard.
func TestShardedSnapshot(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.DiscardHandler)
	c, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	const n = 3
	s, err := codemojex.NewShards(ctx, c, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet, StarterKeys: 100}, n)
	require.NoError(t, err)
	for k := range n {
		r, err := s.CreateRoomIn(ctx, codemojex.RoomSpec{Name: "Health " + strconv.Itoa(k)}, k)
		require.NoError(t, err)
		e := s.Shard(k)
		p, _, err := e.SignIn(ctx, codemojex.Identity{Provider: "dev", Subject: "p" + strconv.Itoa(k)})
		require.NoError(t, err)
		j, err := e.Join(ctx, p.ID, r.ID)
		require.NoError(t, err)
		for i := range k + 1 {
			guess(t, e, p.ID, j.Game, i)
		}
	}
	m, err := health.NewSharded(s, nil)
	require.NoError(t, err)
	before, err := m.Read(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(6), before.Backlog, "1 + 2 + 3 guesses queued over the shards")
	require.Zero(t, before.ScoredLastMinute)
	ws, err := s.Workers(nil)
	require.NoError(t, err)
	for _, w := range ws {
		require.NoError(t, w.Start(ctx))
		t.Cleanup(func() { require.NoError(t, w.Stop(ctx)) })
	}
	echomqtest.WaitFor(t, time.Minute, "every shard's guesses scored", func() bool {
		snap, err := m.Read(ctx)
		return err == nil && snap.ScoredLastMinute == 6 && snap.Backlog == 0
	})
	after, err := m.Read(ctx)
	require.NoError(t, err)
	require.Zero(t, after.Backlog)
	require.Equal(t, 6, after.ScoredLastMinute)
	require.Equal(t, n, after.PlayersActive)
	_, err = health.NewSharded(nil, nil)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}
