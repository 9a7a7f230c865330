package codemojex

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// A sharded game routes a sign-in to the identity's home shard, a
// player's acts to that shard, and refuses a join of another shard's room
// before writing anything; a process that has not met a player or a game
// finds its shard.
func TestShardsRouting(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	q := echomqtest.Queue(t)
	const n = 3
	s, err := NewShards(ctx, c, &Config{Queue: q, Logger: quiet, StarterKeys: 5}, n)
	require.NoError(t, err)

	rooms := make([]Room, n)
	for k := range n {
		rooms[k], err = s.CreateRoomIn(ctx, RoomSpec{Name: "room " + strconv.Itoa(k), Prize: 10}, k)
		require.NoError(t, err)
		require.Equal(t, k, RoomShard(rooms[k].ID, n))
		got, err := s.Shard(k).Room(ctx, rooms[k].ID)
		require.NoError(t, err)
		require.Equal(t, rooms[k], got)
	}
	_, err = s.CreateRoomIn(ctx, RoomSpec{Name: "x"}, n)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)

	homes := map[int]bool{}
	for i := range 9 {
		id := Identity{Provider: "dev", Subject: "p" + strconv.Itoa(i)}
		p, token, err := s.SignIn(ctx, id)
		require.NoError(t, err)
		h := IdentityShard(id.Provider, id.Subject, n)
		homes[h] = true
		require.True(t, strings.HasSuffix(token, "."+strconv.Itoa(h)), "the token names its shard: %s", token)
		_, err = s.Shard(h).Player(ctx, p.ID)
		require.NoError(t, err, "the player lives in its home shard")
		again, _, err := s.SignIn(ctx, id)
		require.NoError(t, err)
		require.Equal(t, p.ID, again.ID, "an identity makes one player")

		got, err := s.Authenticate(ctx, token)
		require.NoError(t, err)
		require.Equal(t, p.ID, got.ID)

		// Another process (no memory of the player) finds its home.
		s2, err := NewShards(ctx, c, &Config{Queue: q, Logger: quiet}, n)
		require.NoError(t, err)
		home, err := s2.Home(ctx, p.ID)
		require.NoError(t, err)
		require.Equal(t, h, home)

		// Joins and guesses: the room of every shard, one wallet.
		for k, r := range rooms {
			j, err := s2.Join(ctx, p.ID, r.ID)
			require.NoError(t, err)
			// A third process finds the game in its shard.
			s3, err := NewShards(ctx, c, &Config{Queue: q, Logger: quiet}, n)
			require.NoError(t, err)
			e, err := s3.ForGame(ctx, j.Game)
			require.NoError(t, err)
			require.Same(t, s3.Shard(k), e)
			g, err := s3.Game(ctx, j.Game)
			require.NoError(t, err)
			require.Equal(t, r.ID, g.Room)

			kb := keyboardOf(t, s.Shard(k), j.Game)
			rc, err := s2.Submit(ctx, p.ID, j.Game, kb[:6])
			require.NoError(t, err)
			w, err := s2.Wallet(ctx, p.ID)
			require.NoError(t, err)
			require.Equal(t, rc.Balance, w)
			require.Equal(t, int64(4+2*k), w.Keys, "5 starter keys, a guess and a grant of 3 per room before")
			gs, err := s2.Guesses(ctx, p.ID, []string{rc.Guess})
			require.NoError(t, err)
			require.Len(t, gs, 1)
			_, err = s2.GuessOf(ctx, p.ID, rc.Guess)
			require.NoError(t, err)
			w, err = s2.Grant(ctx, p.ID, Keys, 3)
			require.NoError(t, err)
			require.Equal(t, int64(7+2*k), w.Keys)
			rows, err := s2.Ledger(ctx, p.ID, 10)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(rows), 3, "starter, guess, grant")
		}

		require.NoError(t, s.SignOut(ctx, token))
		_, err = s.Authenticate(ctx, token)
		require.ErrorIs(t, err, ErrUnauthorized)
	}
	require.Len(t, homes, n, "9 identities over 3 shards")

	for _, bad := range []string{"", "nope", strings.Repeat("a", 64), strings.Repeat("a", 64) + ".3", strings.Repeat("a", 64) + ".01"} {
		_, err := s.Authenticate(ctx, bad)
		require.ErrorIs(t, err, ErrUnauthorized, "%q", bad)
		require.NoError(t, s.SignOut(ctx, bad))
	}
	_, err = s.Home(ctx, BrandPlayer+"-nobody")
	require.Error(t, err)
	_, err = s.ForGame(ctx, "nope")
	require.Error(t, err)
	_, err = s.Join(ctx, "nope", rooms[0].ID)
	require.Error(t, err)

	// One shard: Single is the engine itself.
	one := Single(s.Shard(0))
	require.Equal(t, 1, one.Len())
	p, token, err := one.SignIn(ctx, Identity{Provider: "dev", Subject: "solo"})
	require.NoError(t, err)
	require.Len(t, token, 64)
	home, err := one.Home(ctx, p.ID)
	require.NoError(t, err)
	require.Zero(t, home)
}
