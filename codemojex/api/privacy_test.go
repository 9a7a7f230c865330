package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
)

// forms are the ways a list of codes could show in a response: as a JSON
// list, joined by commas, and as the row of emoji drawn for it.
func forms(set *rules.Set, codes []string) []string {
	b, _ := json.Marshal(codes)
	cs := make([]rules.Code, len(codes))
	for i, c := range codes {
		cs[i] = rules.Code(c)
	}
	return []string{string(b), strings.Join(codes, ","), set.Render(cs)}
}

// Privacy: during a whole simulated game (a classic and a blind room, four
// players) every response of every route, every public projection and
// every stream is scanned: none holds a secret while its game is open, and
// none but its own player's holds the codes of a guess, ever.
func TestPrivacyScan(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	animals, err := rules.Builtin("animals")
	require.NoError(t, err)
	rooms := []string{
		h.createRoom(map[string]any{"name": "Den", "set": "animals", "prize": 100, "duration": "1h"}),
		h.createRoom(map[string]any{"name": "Vault", "set": "animals", "mode": "blind", "prize": 100, "duration": "1h"}),
	}
	var players []player
	for i := range 4 {
		players = append(players, h.signIn(fmt.Sprintf("p%d", i), 20))
	}
	games := make([]string, len(rooms))
	for i, r := range rooms {
		for _, p := range players {
			games[i], _ = h.join(p, r)
		}
	}
	secrets := map[string][]string{}
	for _, g := range games {
		secrets[g] = h.secret(g)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	owner := map[string]string{}   // a form of a guess's codes → its player's token
	guessOf := map[string]string{} // guess id → its player's token
	var ids []string
	readAll := func() {
		h.call("GET", "/api/rooms", "", nil, 200, nil)
		h.call("GET", "/api/feed?window=1h", "", nil, 200, nil)
		h.call("GET", "/api/results", "", nil, 200, nil)
		for i, g := range games {
			h.call("GET", "/api/rooms/"+rooms[i], "", nil, 200, nil)
			h.call("GET", "/api/games/"+g, "", nil, 200, nil)
			h.call("GET", "/api/games/"+g+"/leaderboard", "", nil, 200, nil)
			for _, p := range players {
				h.call("GET", "/api/games/"+g, p.Token, nil, 200, nil)
				h.call("GET", "/api/games/"+g+"/history", p.Token, nil, 200, nil)
			}
		}
		for _, p := range players {
			h.call("GET", "/api/me", p.Token, nil, 200, nil)
			h.call("GET", "/api/ledger", p.Token, nil, 200, nil)
			for _, id := range ids {
				want := 200
				if guessOf[id] != p.Token {
					want = 404 // another player's guess is not found
				}
				h.call("GET", "/api/guesses/"+id, p.Token, nil, want, nil)
			}
		}
	}
	for round := range 4 {
		for _, g := range games {
			kb := h.keyboard(g)
			for _, p := range players {
				var codes []string
				for codes == nil || slices.Equal(codes, secrets[g]) {
					perm := rng.Perm(len(kb))[:6]
					codes = make([]string, 6)
					for i, j := range perm {
						codes[i] = kb[j]
					}
				}
				id, _ := h.guess(p, g, codes)
				ids = append(ids, id)
				guessOf[id] = p.Token
				for _, f := range forms(animals, codes) {
					owner[f] = p.Token
				}
			}
		}
		h.sync()
		readAll()
		_ = round
	}

	// Blind: no points, bests or board while open.
	var lb struct {
		Sealed      bool
		Leaderboard []any
	}
	h.call("GET", "/api/games/"+games[1]+"/leaderboard", "", nil, 200, &lb)
	require.True(t, lb.Sealed)
	require.Empty(t, lb.Leaderboard)
	var feed struct {
		Feed []struct {
			Kind   string
			Game   string
			Points int
			Sealed bool
		}
	}
	h.call("GET", "/api/feed?window=1h&limit=500", "", nil, 200, &feed)
	for _, it := range feed.Feed {
		if it.Game == games[1] && it.Kind == "scored" {
			require.True(t, it.Sealed)
			require.Zero(t, it.Points)
		}
	}

	// The public projections and every stream, while the games are open.
	ctx := context.Background()
	var public []string
	for _, st := range []any{
		first(h.views.Feed.State(ctx)), first(h.views.Results.State(ctx)), first(h.views.RoomStats.State(ctx)),
		first(h.views.Boards.State(ctx)), first(h.views.Lobby.State(ctx)), first(h.views.Players.State(ctx)),
	} {
		b, err := json.Marshal(st)
		require.NoError(t, err)
		public = append(public, string(b))
	}
	for _, name := range codemojex.Streams {
		for ev, err := range h.e.Stream(name).Scan(ctx, echomq.All, nil) {
			require.NoError(t, err)
			b, _ := json.Marshal(ev.Fields)
			public = append(public, string(b))
		}
	}
	scan := func(phase string, secretsOpen bool) {
		h.mu.Lock()
		defer h.mu.Unlock()
		texts := public
		tokens := slices.Repeat([]string{""}, len(public)) // the public texts carry no token
		for _, r := range h.responses {
			texts = append(texts, r.Body)
			tokens = append(tokens, r.Token)
		}
		for i, text := range texts {
			if secretsOpen {
				for g, s := range secrets {
					for _, f := range forms(animals, s) {
						require.NotContains(t, text, f, "%s: the secret of %s", phase, g)
					}
				}
			}
			for f, tok := range owner {
				if tok != tokens[i] {
					require.NotContains(t, text, f, "%s: another player's guess", phase)
				}
			}
		}
	}
	scan("open", true)
	require.Greater(t, len(h.responses), 300)

	// After the close the secrets are revealed; the guesses stay private.
	h.responses = nil
	for _, g := range games {
		h.call("POST", "/api/op/games/"+g+"/close", opToken, nil, 200, nil)
	}
	h.sync()
	readAll()
	scan("settled", false)
}

func first[A, B, C any](a A, _ B, _ C) A { return a }
