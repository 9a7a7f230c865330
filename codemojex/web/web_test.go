package web_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/telegram"
)

func TestPagesRender(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var in struct{ Token string }
	require.Equal(t, 200, h.call("POST", "/api/auth/dev", "", map[string]string{"name": "ada"}, &in))
	var j struct{ Game string }
	require.Equal(t, 200, h.call("POST", "/api/rooms/"+h.room.ID+"/join", in.Token, nil, &j))
	for _, tc := range []struct {
		path, ctype string
		want        []string
	}{
		{"/", "text/html", []string{
			`data-page="lobby"`, `id="rooms"`, `id="dev-form"`, `<label for="dev-name">`, `/web/static/common.js`, `/web/static/lobby.js`, `data-now="`,
			`pattern="[A-Za-z0-9._\-]{1,64}"`, `rel="icon"`, `href="/web/static/base.css"`,
		}},
		{"/web/games/" + j.Game, "text/html", []string{
			`data-page="game"`, `data-game="` + j.Game + `"`, `id="keyboard"`, `id="slots"`, `aria-label="Submit the guess"`, `id="leaderboard"`, `id="timeleft" role="timer"`, `id="prize"`, `id="fee"`,
			`id="score" class="score" role="status" aria-live="polite"`, `id="feed" class="list feed" role="log" aria-live="polite"`, `/web/static/game.js`,
		}},
		{"/web/results", "text/html", []string{`data-page="results"`, `id="results"`, `/web/static/results.js`}},
		{"/web/ledger", "text/html", []string{`data-page="ledger"`, `/web/static/ledger.js`}},
		{"/web/static/common.js", "text/javascript", []string{"EventSource", "/api/auth/dev", "/web/auth/telegram"}},
		{"/web/static/game.js", "text/javascript", []string{"/guess?wait="}},
		{"/web/static/app.css", "text/css", []string{"@media", `"Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji"`}},
		{"/web/static/base.css", "text/css", []string{"prefers-color-scheme: dark", ":focus-visible"}},
		{"/favicon.ico", "image/svg+xml", []string{"<svg"}},
	} {
		resp, err := http.Get(h.url + tc.path)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, tc.path)
		require.Contains(t, resp.Header.Get("Content-Type"), tc.ctype, tc.path)
		for _, w := range tc.want {
			require.Contains(t, string(b), w, tc.path)
		}
	}
	// An unknown route and an unknown game are 404 pages that say so, in
	// the app's layout, with the way back.
	for path, want := range map[string]string{
		"/no/such/page":             "There is no page at /no/such/page.",
		"/web/games/GAM0000000000x": "There is no game &#34;GAM0000000000x&#34;",
		"/web/games/bogus":          "There is no game &#34;bogus&#34;",
	} {
		resp, err := http.Get(h.url + path)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusNotFound, resp.StatusCode, path)
		require.Contains(t, resp.Header.Get("Content-Type"), "text/html", path)
		require.Contains(t, string(b), want, path)
		require.Contains(t, string(b), `<a href="/">Go to the lobby</a>`, path)
		require.NotContains(t, string(b), `data-game=`+`"GAM`, path)
	}
}

func TestEventsStreamScoredGuess(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var in struct{ Token string }
	require.Equal(t, 200, h.call("POST", "/api/auth/dev", "", map[string]string{"name": "ada"}, &in))
	var j struct{ Game string }
	require.Equal(t, 200, h.call("POST", "/api/rooms/"+h.room.ID+"/join", in.Token, nil, &j))
	var g struct{ Game struct{ Keyboard []string } }
	require.Equal(t, 200, h.call("GET", "/api/games/"+j.Game, "", nil, &g))

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url+"/web/events?game="+j.Game, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	rd := bufio.NewReader(resp.Body)
	line, err := rd.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, ": ready\n", line) // subscribed: the guess below cannot be missed

	var rc struct{ Receipt struct{ Guess string } }
	require.Equal(t, 202, h.call("POST", "/api/games/"+j.Game+"/guess", in.Token, map[string]any{"codes": g.Game.Keyboard[:6]}, &rc))
	event := ""
	for {
		line, err := rd.ReadString('\n')
		require.NoError(t, err)
		line = strings.TrimSuffix(line, "\n")
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok && event == "guess-scored" {
			var d map[string]string
			require.NoError(t, json.Unmarshal([]byte(v), &d))
			require.Equal(t, j.Game, d["game"])
			require.Equal(t, "guess-scored", d["kind"])
			require.Equal(t, "1", d["attempt"])
			require.Contains(t, d, "points")
			require.NotContains(t, d, "guess", "the feed keeps guess ids private")
			return
		}
	}
}

// initData builds a signed Mini App initData for user id 42.
func initData(t *testing.T, token string, at time.Time) url.Values {
	t.Helper()
	v := url.Values{}
	v.Set("auth_date", strconv.FormatInt(at.Unix(), 10))
	v.Set("query_id", "AAHdF6IQAAAAAN0XohDhrOrc")
	v.Set("user", `{"id":42,"first_name":"Ada","last_name":"Lovelace","username":"ada_l"}`)
	v.Set("hash", hex.EncodeToString(telegram.Sign(v, token)))
	return v
}

func TestTelegramSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	now := time.Now()
	tampered := initData(t, botToken, now)
	tampered.Set("user", `{"id":43,"first_name":"Eve","username":"eve"}`)
	for _, tc := range []struct {
		name string
		body any
		want int
	}{
		{"signed", map[string]string{"init_data": initData(t, botToken, now).Encode()}, 200},
		{"tampered user", map[string]string{"init_data": tampered.Encode()}, 401},
		{"other bot", map[string]string{"init_data": initData(t, "999:other", now).Encode()}, 401},
		{"stale", map[string]string{"init_data": initData(t, botToken, now.Add(-48*time.Hour)).Encode()}, 401},
		{"no hash", map[string]string{"init_data": "auth_date=1&user=%7B%7D"}, 401},
		{"empty", map[string]string{"init_data": ""}, 400},
		{"not json", "init_data=x", 400},
	} {
		var out struct {
			Token  string
			Player struct{ ID, Name string }
		}
		status := h.call("POST", "/web/auth/telegram", "", tc.body, &out)
		require.Equal(t, tc.want, status, tc.name)
		if tc.want != 200 {
			require.Empty(t, out.Token, tc.name)
			continue
		}
		require.NotEmpty(t, out.Token)
		require.Equal(t, "ada_l", out.Player.Name)
		var me struct{ Player struct{ ID string } }
		require.Equal(t, 200, h.call("GET", "/api/me", out.Token, nil, &me), "the session works on the API")
		require.Equal(t, out.Player.ID, me.Player.ID)
	}
}
