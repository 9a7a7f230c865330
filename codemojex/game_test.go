package codemojex

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/rules"
)

// The scoring table's worked examples, scored by the engine's worker: the
// guess-scored events carry the points, percentages and the running best,
// and the 600 closes the classic game at once and pays its player.
func TestScoringWorkedExamples(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	r := room(t, e, RoomSpec{Prize: 300})
	p := signIn(t, e, "ann", 10)
	game := join(t, e, p, r)
	s := secretOf(t, e, game)
	off := offSecret(t, keyboardOf(t, e, game), s)
	firstAbsent := codes(s)
	firstAbsent[0] = off
	for _, c := range [][]string{codes(s, 1, 0), codes(s, 5, 1, 2, 3, 4, 0), firstAbsent, codes(s)} {
		_, err := e.Submit(ctx, p.ID, game, c)
		require.NoError(t, err)
	}
	require.Equal(t, 4, scoreAll(t, e))
	var got [][3]string
	for _, ev := range events(t, e, StreamGuessScored) {
		got = append(got, [3]string{ev.Fields.Value("points"), ev.Fields.Value("pct"), ev.Fields.Value("best")})
	}
	require.Equal(t, [][3]string{{"560", "93", "560"}, {"400", "67", "560"}, {"500", "83", "560"}, {"600", "100", "600"}}, got)
	v, err := e.Game(ctx, game)
	require.NoError(t, err)
	require.Equal(t, StatusSettled, v.Status)
	require.Equal(t, ReasonCrack, v.Reason)
	require.Equal(t, codes(s), v.Secret, "the secret is shown once settled")
	w, err := e.Wallet(ctx, p.ID)
	require.NoError(t, err)
	require.Equal(t, Wallet{Keys: 6, Diamonds: 300}, w)
	requireLedgerBalances(t, e)
}

// The first join of a waiting room starts a game (one game-started), later
// joins enter it (one player-joined each), a join again changes nothing,
// and concurrent first joins start one game.
func TestJoinStartsOrEnters(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	r := room(t, e, RoomSpec{})
	players := make([]Player, 8)
	for i := range players {
		players[i] = signIn(t, e, "p"+string(rune('a'+i)), 0)
	}
	games := make([]string, len(players))
	var wg sync.WaitGroup
	for i, p := range players {
		wg.Go(func() { games[i] = join(t, e, p, r) })
	}
	wg.Wait()
	for _, g := range games {
		require.Equal(t, games[0], g)
	}
	again, err := e.Join(ctx, players[0].ID, r.ID)
	require.NoError(t, err)
	require.True(t, again.Already)
	require.Len(t, events(t, e, StreamGameStarted), 1)
	require.Len(t, events(t, e, StreamPlayerJoined), len(players)-1)
	rr, err := e.Room(ctx, r.ID)
	require.NoError(t, err)
	require.Equal(t, RoomActive, rr.Status)
	require.Equal(t, games[0], rr.Game)
}

// The sweep closes an expired game, pays the best player, puts the room
// back to waiting; a second sweep changes nothing; the next join starts a
// new game with a fresh secret.
func TestSweepClosesExpiredGame(t *testing.T) {
	t.Parallel()
	e, clk := setup(t)
	r := room(t, e, RoomSpec{Prize: 90, Duration: time.Minute})
	a, b, c := signIn(t, e, "a", 5), signIn(t, e, "b", 5), signIn(t, e, "c", 5)
	game := join(t, e, a, r)
	join(t, e, b, r)
	join(t, e, c, r)
	s := secretOf(t, e, game)
	_, err := e.Submit(ctx, a.ID, game, codes(s, 1, 0)) // 560
	require.NoError(t, err)
	_, err = e.Submit(ctx, b.ID, game, codes(s, 0, 1, 2, 3, 5, 4)) // 560, later
	require.NoError(t, err)
	scoreAll(t, e)
	res, err := e.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, SweepResult{}, res, "nothing expired yet")

	clk.add(time.Minute)
	_, err = e.Submit(ctx, c.ID, game, codes(s))
	require.ErrorIs(t, err, ErrExpired)
	res, err = e.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, res.Closed)
	res, err = e.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, SweepResult{}, res)

	v, err := e.Game(ctx, game)
	require.NoError(t, err)
	require.Equal(t, ReasonTimer, v.Reason)
	// A tie at 560 splits 90 evenly.
	require.ElementsMatch(t, []Payout{{Player: a.ID, Amount: 45}, {Player: b.ID, Amount: 45}}, v.Payouts)
	rr, err := e.Room(ctx, r.ID)
	require.NoError(t, err)
	require.Equal(t, RoomWaiting, rr.Status)
	require.Empty(t, rr.Game)

	next := join(t, e, c, r)
	require.NotEqual(t, game, next)
	require.Len(t, events(t, e, StreamGameStarted), 2)
	require.Len(t, events(t, e, StreamGameSettled), 1)
	requireLedgerBalances(t, e)
}

// Closing a game nobody scored in pays nothing and still resets the room.
func TestCloseEmptyBoard(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	r := room(t, e, RoomSpec{Prize: 500})
	a := signIn(t, e, "a", 0)
	game := join(t, e, a, r)
	st, err := e.Close(ctx, game, ReasonOperator)
	require.NoError(t, err)
	require.Equal(t, int64(0), st.Paid)
	require.Empty(t, st.Payouts)
	_, err = e.Close(ctx, game, ReasonOperator)
	require.ErrorIs(t, err, ErrAlreadyClosed)
	rr, err := e.Room(ctx, r.ID)
	require.NoError(t, err)
	require.Equal(t, RoomWaiting, rr.Status)
	require.Len(t, events(t, e, StreamGameSettled), 1)
}

// A blind game commits to its secret at open, scores guesses without
// telling anyone their points, is not ended by a 600, and reveals a secret
// that matches the commitment at close.
func TestBlindGame(t *testing.T) {
	t.Parallel()
	e, clk := setup(t)
	r := room(t, e, RoomSpec{Mode: rules.Blind, Prize: 100, Duration: time.Hour, Cells: 18})
	a, b := signIn(t, e, "a", 5), signIn(t, e, "b", 5)
	game := join(t, e, a, r)
	join(t, e, b, r)
	started := events(t, e, StreamGameStarted)[0].Fields
	commitment := started.Value("commitment")
	require.Len(t, commitment, 64)
	require.Len(t, keyboardOf(t, e, game), 18)
	s := secretOf(t, e, game)
	_, err := e.Submit(ctx, a.ID, game, codes(s)) // 600: does not end a blind game
	require.NoError(t, err)
	_, err = e.Submit(ctx, b.ID, game, codes(s, 1, 0))
	require.NoError(t, err)
	scoreAll(t, e)
	for _, ev := range events(t, e, StreamGuessScored) {
		require.Equal(t, "1", ev.Fields.Value("sealed"))
		_, has := ev.Fields.Get("points")
		require.False(t, has, "a blind guess's points stay hidden")
	}
	v, err := e.Game(ctx, game)
	require.NoError(t, err)
	require.Equal(t, StatusOpen, v.Status)
	require.Empty(t, v.Secret)
	gs, err := e.GuessOf(ctx, a.ID, events(t, e, StreamGuessScored)[0].Fields.Value("guess"))
	require.NoError(t, err)
	require.True(t, gs.Sealed)
	require.Zero(t, gs.Points)

	clk.add(time.Hour)
	_, err = e.Sweep(ctx)
	require.NoError(t, err)
	rev := events(t, e, StreamGameRevealed)
	require.Len(t, rev, 1)
	f := rev[0].Fields
	kb, err := rules.ParseKeyboard(started.Value("keyboard"))
	require.NoError(t, err)
	secret, err := rules.ParseSecret(kb, f.Value("secret"))
	require.NoError(t, err)
	require.NoError(t, rules.Verify(commitment, rules.Reveal{Secret: secret, Salt: f.Value("salt")}))
	v, err = e.Game(ctx, game)
	require.NoError(t, err)
	require.Equal(t, []Payout{{Player: a.ID, Amount: 100}}, v.Payouts)
	gs, err = e.GuessOf(ctx, a.ID, gs.ID)
	require.NoError(t, err)
	require.Equal(t, 600, gs.Points, "points are shown once the game is settled")
	requireLedgerBalances(t, e)
}

// A guess still queued when its game closes is void: not scored, its fee
// refunded.
func TestGuessAfterCloseIsVoid(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	r := room(t, e, RoomSpec{Prize: 10})
	a := signIn(t, e, "a", 3)
	game := join(t, e, a, r)
	rc, err := e.Submit(ctx, a.ID, game, codes(secretOf(t, e, game), 1, 0))
	require.NoError(t, err)
	_, err = e.Close(ctx, game, ReasonOperator)
	require.NoError(t, err)
	scoreAll(t, e)
	g, err := e.GuessOf(ctx, a.ID, rc.Guess)
	require.NoError(t, err)
	require.Equal(t, GuessVoid, g.Status)
	w, err := e.Wallet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, int64(3), w.Keys)
	require.Empty(t, events(t, e, StreamGuessScored))
	requireLedgerBalances(t, e)
}
