package views_test

import (
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/projection"
)

// The views of a sharded game fold every shard: the lobby lists the rooms
// of all shards with their running games, the feed every shard's
// game starts.
func TestShardedViewsFanIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	defer client.Close()
	s, err := codemojex.NewShards(ctx, client, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet}, 3)
	require.NoError(t, err)
	v, err := views.NewSharded(s, &views.Config{})
	require.NoError(t, err)

	games := map[string]string{} // room → game
	shards := map[int]bool{}
	for i := range 9 {
		r, err := s.CreateRoom(ctx, codemojex.RoomSpec{Name: "room " + strconv.Itoa(i)})
		require.NoError(t, err)
		e := s.ForRoom(r.ID)
		shards[codemojex.RoomShard(r.ID, s.Len())] = true
		p, _, err := e.SignIn(ctx, codemojex.Identity{Provider: "dev", Subject: "p" + strconv.Itoa(i)})
		require.NoError(t, err)
		j, err := e.Join(ctx, p.ID, r.ID)
		require.NoError(t, err)
		games[r.ID] = j.Game
	}
	require.GreaterOrEqual(t, len(shards), 2)
	require.NoError(t, v.Sync(ctx))

	got := map[string]string{}
	require.NoError(t, v.Lobby.Read(ctx, func(l *views.Lobby, _ projection.Checkpoint) {
		for _, c := range l.Cards() {
			got[c.Room] = c.Game
		}
	}))
	require.Equal(t, games, got)
	require.NoError(t, v.Feed.Read(ctx, func(f *views.Feed, _ projection.Checkpoint) {
		starts := 0
		for _, it := range f.Since(0, 100, "") {
			if it.Kind == "started" {
				starts++
			}
		}
		require.Equal(t, 9, starts)
	}))
}
