package api_test

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// One API style: a wrong method is 405 with Allow, a room is "room" in
// every answer, a sealed guess carries no numbers, and the times of a
// settled board are Unix milliseconds.
func TestAPIStyle(t *testing.T) {
	t.Parallel()
	h := newHarness(t)

	for _, tc := range []struct {
		method, path, allow string
	}{
		{"DELETE", "/api/rooms", "GET, HEAD"},
		{"GET", "/api/auth/dev", "POST"},
		{"PUT", "/api/games/GAM0000000000000/guess", "POST"},
		{"POST", "/api/feed", "GET, HEAD"},
	} {
		req, err := http.NewRequest(tc.method, h.url+tc.path, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var body struct{ Error struct{ Code string } }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		resp.Body.Close()
		require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "%s %s", tc.method, tc.path)
		require.Equal(t, tc.allow, resp.Header.Get("Allow"), "%s %s", tc.method, tc.path)
		require.Equal(t, "method_not_allowed", body.Error.Code)
	}
	status, _ := h.do("GET", "/api/no-such-route", "", nil)
	require.Equal(t, http.StatusNotFound, status)

	var created map[string]map[string]any
	h.call("POST", "/api/op/rooms", opToken, map[string]any{"name": "Vault", "set": "animals", "mode": "blind", "prize": 100, "duration": "1h"}, 201, &created)
	room, _ := created["room"]["room"].(string)
	require.NotEmpty(t, room)
	require.NotContains(t, created["room"], "id")
	var one map[string]map[string]any
	h.call("GET", "/api/rooms/"+room, "", nil, 200, &one)
	require.Equal(t, room, one["room"]["room"])

	alice := h.signIn("alice", 10)
	game, _ := h.join(alice, room)
	s := h.secret(game)
	var rc struct{ Receipt struct{ Guess string } }
	h.call("POST", "/api/games/"+game+"/guess", alice.Token, map[string]any{"codes": s}, 202, &rc)
	var g map[string]map[string]any
	require.Eventually(t, func() bool {
		h.call("GET", "/api/guesses/"+rc.Receipt.Guess+"?wait=5s", alice.Token, nil, 200, &g)
		return g["guess"]["status"] == "scored"
	}, time.Minute, 10*time.Millisecond)
	require.Equal(t, rc.Receipt.Guess, g["guess"]["guess"])
	require.Equal(t, true, g["guess"]["sealed"])
	var open struct {
		Game struct{ Totals map[string]any }
	}
	h.call("GET", "/api/games/"+game, "", nil, 200, &open)
	require.Equal(t, true, open.Game.Totals["sealed"])
	require.NotContains(t, open.Game.Totals, "best", "no 0 for a sealed best")
	require.NotContains(t, open.Game.Totals, "best_pct")
	require.NotContains(t, g["guess"], "points")
	require.NotContains(t, g["guess"], "pct")

	var closed struct {
		Settlement struct {
			Board []map[string]any
		}
	}
	before := time.Now().UnixMilli()
	h.call("POST", "/api/op/games/"+game+"/close", opToken, nil, 200, &closed)
	require.Len(t, closed.Settlement.Board, 1)
	at := int64(closed.Settlement.Board[0]["at_ms"].(float64))
	require.InDelta(t, before, at, float64(time.Hour.Milliseconds()), "at_ms is a Unix millisecond time")
	require.NotContains(t, closed.Settlement.Board[0], "at")

	var view struct{ Game map[string]any }
	h.call("GET", "/api/games/"+game, "", nil, 200, &view)
	require.Equal(t, game, view.Game["game"])
	board := view.Game["board"].([]any)
	require.Equal(t, closed.Settlement.Board[0]["at_ms"], board[0].(map[string]any)["at_ms"])
	h.call("GET", "/api/guesses/"+rc.Receipt.Guess, alice.Token, nil, 200, &g)
	require.InDelta(t, 600, g["guess"]["points"], 0, "revealed once settled")
	require.Equal(t, "Vault", view.Game["room_name"])

	// The blind reveal comes with its check, and the printed command
	// recomputes the commitment.
	check := view.Game["check"].(map[string]any)
	require.Equal(t, true, check["matches"])
	require.Equal(t, view.Game["commitment"], check["recomputed"])
	if _, err := exec.LookPath("sha256sum"); err == nil {
		out, err := exec.Command("sh", "-c", check["command"].(string)).Output()
		require.NoError(t, err, "%s", check["command"])
		require.Equal(t, view.Game["commitment"].(string)+"  -", strings.TrimSpace(string(out)))
	}
}

// Feed and results carry names: the player's, the room's and the winners'.
func TestFeedAndResultsNamed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	room := h.createRoom(map[string]any{"name": "Den", "set": "animals", "prize": 100, "duration": "1h"})
	alice := h.signIn("alice", 10)
	game, _ := h.join(alice, room)
	h.guess(alice, game, h.secret(game))
	var raw struct{ Feed []map[string]any }
	require.Eventually(t, func() bool {
		h.call("GET", "/api/feed?game="+game, "", nil, 200, &raw)
		return len(raw.Feed) == 3
	}, time.Minute, 10*time.Millisecond)
	settled, scored, started := raw.Feed[0], raw.Feed[1], raw.Feed[2]
	require.Equal(t, "settled", settled["kind"])
	require.Equal(t, "Den", settled["room_name"])
	require.Equal(t, "alice", settled["winners"].([]any)[0].(map[string]any)["name"])
	require.Equal(t, "scored", scored["kind"])
	require.Equal(t, "alice", scored["name"])
	require.Equal(t, "started", started["kind"], "the start stays in the feed after a reload")
	require.Equal(t, "alice", started["name"])

	var res struct{ Results []map[string]any }
	h.call("GET", "/api/results", "", nil, 200, &res)
	require.Len(t, res.Results, 1)
	require.Equal(t, "Den", res.Results[0]["room_name"])
	require.Equal(t, "alice", res.Results[0]["winners"].([]any)[0].(map[string]any)["name"])
}
