package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/api"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/echomqtest"
)

// The API of a game of 3 shards: rooms made in a given shard and carrying
// it, a sign-in answering its home shard, the lobby showing every room to
// everyone, and a join and a guess submitted and scored in the room of
// every shard, all paid from the one wallet of the home shard.
func TestShardedAPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	const n = 3
	s, err := codemojex.NewShards(ctx, client, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet}, n)
	require.NoError(t, err)
	v, err := views.NewSharded(s, &views.Config{Block: 100 * time.Millisecond})
	require.NoError(t, err)
	hub := views.NewShardedHub(s, 100*time.Millisecond)
	ws, err := s.Workers(nil)
	require.NoError(t, err)
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = v.Run(rctx) })
	wg.Go(func() { _ = hub.Run(rctx) })
	for _, w := range ws {
		require.NoError(t, w.Start(rctx))
	}
	srv := httptest.NewServer(api.NewSharded(s, v, hub, &api.Config{OperatorToken: opToken, DevSignIn: true, MaxWait: 10 * time.Second, Logger: quiet}))
	t.Cleanup(func() {
		srv.Close()
		for _, w := range ws {
			require.NoError(t, w.Stop(context.Background()))
		}
		cancel()
		wg.Wait()
	})
	h := &harness{t: t, url: srv.URL}

	st, body := h.do("GET", "/api/health", "", nil)
	require.Equal(t, http.StatusOK, st)
	require.JSONEq(t, `{"ok":true,"shards":3}`, string(body))

	rooms := make([]string, n)
	for k := range n {
		st, body := h.do("POST", "/api/op/rooms", opToken, map[string]any{"name": fmt.Sprint("room ", k), "shard": k, "prize": 10})
		require.Equal(t, http.StatusCreated, st, string(body))
		var out struct {
			Room struct {
				Room  string `json:"room"`
				Shard int    `json:"shard"`
			} `json:"room"`
		}
		require.NoError(t, json.Unmarshal(body, &out))
		require.Equal(t, k, out.Room.Shard)
		require.Equal(t, k, codemojex.RoomShard(out.Room.Room, n))
		rooms[k] = out.Room.Room
	}
	st, _ = h.do("POST", "/api/op/rooms", opToken, map[string]any{"name": "nowhere", "shard": n})
	require.Equal(t, http.StatusBadRequest, st)

	var in struct {
		Token  string           `json:"token"`
		Player codemojex.Player `json:"player"`
		Shard  int              `json:"shard"`
	}
	st, body = h.do("POST", "/api/auth/dev", "", map[string]string{"name": "ann"})
	require.Equal(t, http.StatusOK, st)
	require.NoError(t, json.Unmarshal(body, &in))
	require.Equal(t, codemojex.IdentityShard("dev", "ann", n), in.Shard)
	st, body = h.do("POST", "/api/op/grant", opToken, map[string]any{"player": "ann", "currency": "keys", "amount": 5})
	require.Equal(t, http.StatusOK, st, string(body))

	// Each room appears in the lobby (the views fold every shard), to a
	// signed-in player too.
	echomqtest.WaitFor(t, 30*time.Second, "the lobby lists the rooms", func() bool {
		_, body := h.do("GET", "/api/rooms", "", nil)
		var l struct{ Rooms []struct{ Room string } }
		return json.Unmarshal(body, &l) == nil && len(l.Rooms) == n
	})
	_, body = h.do("GET", "/api/rooms", in.Token, nil)
	var mine struct{ Rooms []struct{ Room string } }
	require.NoError(t, json.Unmarshal(body, &mine))
	require.Len(t, mine.Rooms, n)

	for _, r := range rooms {
		st, body := h.do("POST", "/api/rooms/"+r+"/join", in.Token, nil)
		require.Equal(t, http.StatusOK, st, string(body))
		var j struct {
			Game string `json:"game"`
			View struct {
				Keyboard []string `json:"keyboard"`
			} `json:"view"`
		}
		require.NoError(t, json.Unmarshal(body, &j))
		st, body = h.do("POST", "/api/games/"+j.Game+"/guess?wait=10s", in.Token, map[string]any{"codes": j.View.Keyboard[:6]})
		require.Equal(t, http.StatusOK, st, string(body))
		var g struct {
			Guess struct{ Status string } `json:"guess"`
		}
		require.NoError(t, json.Unmarshal(body, &g))
		require.Equal(t, "scored", g.Guess.Status)
		st, body = h.do("GET", "/api/games/"+j.Game, "", nil)
		require.Equal(t, http.StatusOK, st, string(body))
	}
	st, body = h.do("GET", "/api/ledger", in.Token, nil)
	require.Equal(t, http.StatusOK, st, string(body))
	require.Contains(t, string(body), codemojex.ReasonGuess)
	st, _ = h.do("POST", "/api/auth/signout", in.Token, nil)
	require.Equal(t, http.StatusNoContent, st)
	st, _ = h.do("GET", "/api/me", in.Token, nil)
	require.Equal(t, http.StatusUnauthorized, st)
}
