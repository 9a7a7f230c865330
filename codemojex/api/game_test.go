package api_test

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex"
)

// A whole game through the API with three players: they join (the first
// starts the game), guess and are scored, a crack closes the game at once,
// the winner is credited, the ledger balances, the room waits for its next
// game, and each event stream holds exactly the expected events in order.
func TestFullGameThroughAPI(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	room := h.createRoom(map[string]any{"name": "Den", "set": "animals", "prize": 900, "fee": 1, "duration": "1h"})
	alice, bob, carol := h.signIn("alice", 10), h.signIn("bob", 10), h.signIn("carol", 10)

	game, started := h.join(alice, room)
	require.True(t, started)
	for _, p := range []player{bob, carol} {
		g, started := h.join(p, room)
		require.Equal(t, game, g)
		require.False(t, started)
	}
	s := h.secret(game)
	kb := h.keyboard(game)
	absent := ""
	for _, c := range kb {
		if !slices.Contains(s, c) {
			absent = c
			break
		}
	}
	firstAbsent := append([]string{absent}, s[1:]...)

	type play struct {
		p      player
		codes  []string
		points int
	}
	plays := []play{
		{alice, permute(s, 1, 0), 560},
		{bob, firstAbsent, 500},
		{carol, permute(s, 5, 1, 2, 3, 4, 0), 400},
		{bob, permute(s, 2, 1, 0), 520},
		{carol, s, 600},
	}
	var guessIDs []string
	for _, pl := range plays {
		id, points := h.guess(pl.p, game, pl.codes)
		require.Equal(t, pl.points, points)
		guessIDs = append(guessIDs, id)
	}

	// The crack settles the game right after it is scored.
	var view struct {
		Game struct {
			Status  string
			Reason  string
			Payouts []codemojex.Payout
			Secret  []string
			Totals  struct{ Players, Attempts, Best int }
		}
	}
	waitFor(t, func() bool {
		h.call("GET", "/api/games/"+game, "", nil, 200, &view)
		return view.Game.Status == codemojex.StatusSettled
	})
	require.Equal(t, codemojex.ReasonCrack, view.Game.Reason)
	require.Equal(t, []codemojex.Payout{{Player: carol.ID, Amount: 900}}, view.Game.Payouts)
	require.Equal(t, s, view.Game.Secret)

	var bal struct{ Balance codemojex.Wallet }
	h.call("GET", "/api/balance", carol.Token, nil, 200, &bal)
	require.Equal(t, codemojex.Wallet{Keys: 8, Diamonds: 900}, bal.Balance)
	h.requireLedgerBalances(alice, bob, carol)

	var rm struct{ Room codemojex.Room }
	h.call("GET", "/api/rooms/"+room, "", nil, 200, &rm)
	require.Equal(t, codemojex.RoomWaiting, rm.Room.Status)

	h.sync()
	var lb struct {
		Leaderboard []struct {
			Player string
			Best   int
		}
	}
	h.call("GET", "/api/games/"+game+"/leaderboard", "", nil, 200, &lb)
	require.Len(t, lb.Leaderboard, 3)
	require.Equal(t, []string{carol.ID, alice.ID, bob.ID}, []string{lb.Leaderboard[0].Player, lb.Leaderboard[1].Player, lb.Leaderboard[2].Player})
	require.Equal(t, []int{600, 560, 520}, []int{lb.Leaderboard[0].Best, lb.Leaderboard[1].Best, lb.Leaderboard[2].Best})

	// The streams hold exactly the story, in order.
	fields := func(stream string, names ...string) [][]string {
		var out [][]string
		for _, ev := range h.events(stream) {
			_, hasID := ev.Fields.Get("id")
			require.False(t, hasID, "no payload field is named id")
			row := make([]string, len(names))
			for i, n := range names {
				row[i] = ev.Fields.Value(n)
			}
			out = append(out, row)
		}
		return out
	}
	require.Equal(t, [][]string{{room, "Den", "900"}}, fields(codemojex.StreamRoomOpened, "room", "name", "prize"))
	require.Equal(t, [][]string{{game, room, alice.ID}}, fields(codemojex.StreamGameStarted, "game", "room", "player"))
	require.Equal(t, [][]string{{game, bob.ID}, {game, carol.ID}}, fields(codemojex.StreamPlayerJoined, "game", "player"))
	var scored [][]string
	for i, pl := range plays {
		scored = append(scored, []string{game, pl.p.ID, guessIDs[i], itoa(pl.points)})
	}
	require.Equal(t, scored, fields(codemojex.StreamGuessScored, "game", "player", "guess", "points"))
	settled := fields(codemojex.StreamGameSettled, "game", "reason", "paid", "winners", "players", "guesses", "best")
	require.Len(t, settled, 1)
	var winners []codemojex.Payout
	require.NoError(t, json.Unmarshal([]byte(settled[0][3]), &winners))
	require.Equal(t, []codemojex.Payout{{Player: carol.ID, Amount: 900}}, winners)
	require.Equal(t, []string{game, "crack", "900", settled[0][3], "3", "5", "600"}, settled[0])
	require.Empty(t, h.events(codemojex.StreamGameRevealed))
	var ledger [][]string
	for _, ev := range h.events(codemojex.StreamLedger) {
		r := codemojex.ParseLedgerRow(ev.Fields)
		ledger = append(ledger, []string{r.Player, r.Reason, string(r.Currency), itoa(int(r.Delta))})
	}
	want := [][]string{{alice.ID, "grant", "keys", "10"}, {bob.ID, "grant", "keys", "10"}, {carol.ID, "grant", "keys", "10"}}
	for _, pl := range plays {
		want = append(want, []string{pl.p.ID, "guess", "keys", "-1"})
	}
	want = append(want, []string{carol.ID, "prize", "diamonds", "900"})
	require.Equal(t, want, ledger)

	// The room waits for its next game: the next join starts a new one.
	next, started := h.join(bob, room)
	require.True(t, started)
	require.NotEqual(t, game, next)
}

// A submit that asks to wait answers once its guess is scored: one
// request, the receipt and the scored guess, 200.
func TestGuessWaitsForItsScore(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	room := h.createRoom(map[string]any{"name": "Den", "set": "animals", "fee": 1, "duration": "1h"})
	alice, bob := h.signIn("alice", 10), h.signIn("bob", 10)
	game, _ := h.join(alice, room)
	h.join(bob, room)
	s := h.secret(game)

	type answer struct {
		Status  string
		Receipt struct {
			Guess   string
			Balance codemojex.Wallet
		}
		Guess struct {
			Guess, Status string
			Points        int
		}
	}
	// Several guesses of one player in flight at once: each request waits
	// for its own guess, not the first of the player's to be scored.
	plays := [][]string{permute(s, 1, 0), permute(s, 2, 1, 0), permute(s, 5, 1, 2, 3, 4, 0)}
	want := []int{560, 520, 400}
	got := make([]answer, len(plays))
	took := make([]time.Duration, len(plays))
	var wg sync.WaitGroup
	for i, codes := range plays {
		wg.Go(func() {
			start := time.Now()
			h.call("POST", "/api/games/"+game+"/guess?wait=10s", alice.Token, map[string]any{"codes": codes}, 200, &got[i])
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	for i, a := range got {
		// Woken by the score, not by the end of the wait (which would
		// answer the same guess, but only after the whole 10 s).
		require.Less(t, took[i], 10*time.Second, "guess %d answered when its wait ran out", i)
		require.Equal(t, "accepted", a.Status)
		require.Equal(t, a.Receipt.Guess, a.Guess.Guess)
		require.Equal(t, codemojex.GuessScored, a.Guess.Status)
		require.Equal(t, want[i], a.Guess.Points)
	}
	// Without a wait the answer is the receipt alone, 202, as before.
	var plain map[string]json.RawMessage
	h.call("POST", "/api/games/"+game+"/guess", bob.Token, map[string]any{"codes": permute(s, 1, 0)}, 202, &plain)
	require.NotContains(t, plain, "guess")
	require.Contains(t, plain, "receipt")
}

// A wait that ends before the score answers 202 with the guess queued; the
// guess is charged once and stays to be scored.
func TestGuessWaitEndsQueued(t *testing.T) {
	t.Parallel()
	h := newIdleHarness(t)
	room := h.createRoom(map[string]any{"name": "Den", "set": "animals", "fee": 1, "duration": "1h"})
	alice := h.signIn("alice", 10)
	game, _ := h.join(alice, room)
	var a struct {
		Receipt struct {
			Guess   string
			Balance codemojex.Wallet
		}
		Guess struct{ Guess, Status string }
	}
	h.call("POST", "/api/games/"+game+"/guess?wait=1s", alice.Token, map[string]any{"codes": h.secret(game)}, 202, &a)
	require.Equal(t, codemojex.GuessQueued, a.Guess.Status)
	require.Equal(t, a.Receipt.Guess, a.Guess.Guess)
	require.Equal(t, int64(9), a.Receipt.Balance.Keys)
	var bal struct{ Balance codemojex.Wallet }
	h.call("GET", "/api/balance", alice.Token, nil, 200, &bal)
	require.Equal(t, int64(9), bal.Balance.Keys)
}
