package codemojex

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/echomq/echomq/echomqtest"
	"github.com/stretchr/testify/require"
)

// across is a game of two shards on one server, with a test clock, and a
// player whose home is one shard playing a room of the other.
type across struct {
	s          *Shards
	clk        *clock
	home, away *Engine
	hk, rk     int
	p          Player
	r          Room
}

const acrossKeys = 50

func newAcross(t *testing.T, spec RoomSpec) *across {
	t.Helper()
	clk := &clock{t: time.Now()}
	s, err := NewShards(ctx, connect(t, echomqtest.Shared(t).URL()), &Config{Queue: echomqtest.Queue(t), Clock: clk.now, Logger: quiet}, 2)
	require.NoError(t, err)
	p, _, err := s.SignIn(ctx, Identity{Provider: "dev", Subject: "far-" + t.Name()})
	require.NoError(t, err)
	_, err = s.Grant(ctx, p.ID, Keys, acrossKeys)
	require.NoError(t, err)
	hk, err := s.Home(ctx, p.ID)
	require.NoError(t, err)
	rk := 1 - hk
	if spec.Name == "" {
		spec.Name = "far"
	}
	if spec.Fee == 0 {
		spec.Fee = 3
	}
	r, err := s.CreateRoomIn(ctx, spec, rk)
	require.NoError(t, err)
	return &across{s: s, clk: clk, home: s.Shard(hk), away: s.Shard(rk), hk: hk, rk: rk, p: p, r: r}
}

// join joins the player to the room (of the other shard) and returns the game.
func (a *across) join(t *testing.T) string {
	t.Helper()
	j, err := a.s.Join(ctx, a.p.ID, a.r.ID)
	require.NoError(t, err)
	return j.Game
}

// guess returns codes of game g that are not the secret.
func (a *across) guess(t *testing.T, g string) []string {
	t.Helper()
	s := secretOf(t, a.away, g)
	c := codes(s)
	c[0] = offSecret(t, keyboardOf(t, a.away, g), s)
	return c
}

func (a *across) hold(t *testing.T, guess string) holdRecord {
	t.Helper()
	h, ok, err := readJSON[holdRecord](ctx, a.home, tableHolds, holdKey(a.rk, guess))
	require.NoError(t, err)
	require.True(t, ok, "the hold of %s", guess)
	return h
}

func (a *across) keys(t *testing.T) int64 {
	t.Helper()
	w, err := a.s.Wallet(ctx, a.p.ID)
	require.NoError(t, err)
	return w.Keys
}

// rows counts the home ledger's rows of reason about guess.
func (a *across) rows(t *testing.T, reason, guess string) int {
	t.Helper()
	n := 0
	for _, r := range ledgerRows(t, a.home) {
		if r.Reason == reason && r.Ref == guess {
			n++
		}
	}
	return n
}

// balanced checks every wallet of both shards against its ledger, and
// that the room's shard booked nothing for the player.
func (a *across) balanced(t *testing.T) {
	t.Helper()
	requireLedgerBalances(t, a.home)
	requireLedgerBalances(t, a.away)
	for _, r := range ledgerRows(t, a.away) {
		require.NotEqual(t, a.p.ID, r.Player, "a row of the player in the room's shard: %+v", r)
	}
}

// A guess in a room of another shard than its player's home is charged
// once, at home, against a hold, recorded and scored in the room's shard;
// the sweep then marks its hold done, and nothing else moves.
func TestAcrossGuessChargedOnceAndScored(t *testing.T) {
	t.Parallel()
	a := newAcross(t, RoomSpec{})
	g := a.join(t)
	rc, err := a.s.Submit(ctx, a.p.ID, g, a.guess(t, g))
	require.NoError(t, err)
	require.Equal(t, int64(3), rc.Charged)
	require.Equal(t, int64(acrossKeys-3), rc.Balance.Keys)
	require.Equal(t, int64(acrossKeys-3), a.keys(t))
	require.Equal(t, holdHeld, a.hold(t, rc.Guess).Status)
	require.Equal(t, 1, a.rows(t, ReasonGuess, rc.Guess))

	require.Equal(t, 1, scoreAll(t, a.away))
	gs, err := a.s.GuessOf(ctx, a.p.ID, rc.Guess)
	require.NoError(t, err)
	require.Equal(t, GuessScored, gs.Status)
	st, ok, err := a.s.Standing(ctx, g, a.p.ID)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 1, st.Attempts)

	n, err := a.s.settleAcross(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a hold younger than PendingAfter is left alone")
	a.clk.add(2 * time.Minute)
	n, err = a.s.settleAcross(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, holdDone, a.hold(t, rc.Guess).Status)
	n, err = a.s.settleAcross(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, int64(acrossKeys-3), a.keys(t))
	require.Zero(t, a.rows(t, ReasonRefund, rc.Guess))
	a.balanced(t)

	// The same player in a room of their home shard: today's one
	// transaction, no hold.
	r, err := a.s.CreateRoomIn(ctx, RoomSpec{Name: "near", Fee: 2}, a.hk)
	require.NoError(t, err)
	j, err := a.s.Join(ctx, a.p.ID, r.ID)
	require.NoError(t, err)
	s := secretOf(t, a.home, j.Game)
	c := codes(s)
	c[0] = offSecret(t, keyboardOf(t, a.home, j.Game), s)
	rc2, err := a.s.Submit(ctx, a.p.ID, j.Game, c)
	require.NoError(t, err)
	_, held, err := readJSON[holdRecord](ctx, a.home, tableHolds, holdKey(a.hk, rc2.Guess))
	require.NoError(t, err)
	require.False(t, held)
	require.Equal(t, int64(acrossKeys-5), a.keys(t))
	requireLedgerBalances(t, a.home)
}

// Refusals of the second step give the fee back once: a game closed
// between the hold and the acceptance, and a queued guess voided by its
// game's close.
func TestAcrossRefusedRefundedOnce(t *testing.T) {
	t.Parallel()
	a := newAcross(t, RoomSpec{})
	g := a.join(t)

	// Closed between (a) and (b): the acceptance is refused.
	a.s.afterHold = func(string, func(context.Context) (Receipt, error)) error {
		_, err := a.away.Close(ctx, g, ReasonOperator)
		return err
	}
	_, err := a.s.Submit(ctx, a.p.ID, g, a.guess(t, g))
	require.ErrorIs(t, err, ErrClosed)
	a.s.afterHold = nil
	require.Equal(t, int64(acrossKeys), a.keys(t))
	rows := ledgerRows(t, a.home)
	refused := rows[len(rows)-1]
	require.Equal(t, ReasonRefund, refused.Reason)
	require.Equal(t, holdRefunded, a.hold(t, refused.Ref).Status)
	a.clk.add(2 * time.Minute)
	_, err = a.s.settleAcross(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, a.rows(t, ReasonRefund, refused.Ref))
	require.Equal(t, 1, a.rows(t, ReasonGuess, refused.Ref))

	// Queued, then its game closes before the score: void, refunded home.
	g = a.join(t) // the next game of the room
	rc, err := a.s.Submit(ctx, a.p.ID, g, a.guess(t, g))
	require.NoError(t, err)
	require.Equal(t, int64(acrossKeys-3), a.keys(t))
	_, err = a.away.Close(ctx, g, ReasonOperator)
	require.NoError(t, err)
	require.Equal(t, 1, scoreAll(t, a.away))
	gs, err := a.s.GuessOf(ctx, a.p.ID, rc.Guess)
	require.NoError(t, err)
	require.Equal(t, GuessVoid, gs.Status)
	require.Equal(t, holdRefunded, a.hold(t, rc.Guess).Status)
	require.Equal(t, int64(acrossKeys), a.keys(t))
	// Scored again (a redelivered job), swept again: nothing moves.
	_, err = a.away.Score(ctx, rc.Guess)
	require.NoError(t, err)
	a.clk.add(2 * time.Minute)
	_, err = a.s.settleAcross(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, a.rows(t, ReasonRefund, rc.Guess))
	require.Equal(t, int64(acrossKeys), a.keys(t))
	a.balanced(t)

	// Balance spent: refused at home before anything is written.
	_, err = a.s.Grant(ctx, a.p.ID, Clips, 1) // another row, not keys
	require.NoError(t, err)
	g = a.join(t)
	for range acrossKeys / 3 {
		_, err := a.s.Submit(ctx, a.p.ID, g, a.guess(t, g))
		require.NoError(t, err)
	}
	_, err = a.s.Submit(ctx, a.p.ID, g, a.guess(t, g))
	require.ErrorIs(t, err, ErrInsufficient)
	require.Equal(t, int64(acrossKeys%3), a.keys(t))
	a.balanced(t)
}

// A process that dies between the hold and the second step leaves the
// hold held; the home shard's sweep, past PendingAfter, voids the guess in
// the room's shard and refunds it exactly once, and the late second step
// refuses (its acceptance ends in guess-refused), charging nothing more.
func TestAcrossCrashSweepRefundsOnce(t *testing.T) {
	t.Parallel()
	a := newAcross(t, RoomSpec{})
	g := a.join(t)
	var guess string
	var rest func(context.Context) (Receipt, error)
	a.s.afterHold = func(id string, r func(context.Context) (Receipt, error)) error {
		guess, rest = id, r
		return errCrashed
	}
	_, err := a.s.Submit(ctx, a.p.ID, g, a.guess(t, g))
	require.ErrorIs(t, err, errCrashed)
	require.Equal(t, int64(acrossKeys-3), a.keys(t))

	n, err := a.s.settleAcross(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, holdHeld, a.hold(t, guess).Status)

	a.clk.add(2 * time.Minute)
	for range 3 {
		_, err = a.s.settleAcross(ctx)
		require.NoError(t, err)
	}
	require.Equal(t, holdRefunded, a.hold(t, guess).Status)
	require.Equal(t, int64(acrossKeys), a.keys(t))
	require.Equal(t, 1, a.rows(t, ReasonRefund, guess))
	_, void, err := readJSON[int64](ctx, a.away, tableVoids, guess)
	require.NoError(t, err)
	require.True(t, void)

	_, err = rest(ctx)
	require.ErrorIs(t, err, ErrUnavailable)
	rec, ok, err := readJSON[guessRecord](ctx, a.away, tableGuesses, guess)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, GuessRefused, rec.Status)
	require.Len(t, events(t, a.away, StreamGuessRefused), 1)
	_, err = a.s.settleAcross(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, a.rows(t, ReasonRefund, guess))
	require.Equal(t, int64(acrossKeys), a.keys(t))
	require.Zero(t, scoreAll(t, a.away))
	a.balanced(t)
}

// The sweep of a held hold races a late second step, 20 rounds: each
// guess ends either recorded and scored (hold done, no refund) or voided
// and refunded once (never scored); and the late step committing inside
// the sweep's void transaction makes the sweep yield.
func TestAcrossSweepRacesLateStep(t *testing.T) {
	t.Parallel()
	a := newAcross(t, RoomSpec{})
	g := a.join(t)
	_, err := a.s.Grant(ctx, a.p.ID, Keys, 100)
	require.NoError(t, err)
	outcomes := map[string]int{}
	for round := range 21 {
		var guess string
		var rest func(context.Context) (Receipt, error)
		a.s.afterHold = func(id string, r func(context.Context) (Receipt, error)) error {
			guess, rest = id, r
			return errCrashed
		}
		_, err := a.s.Submit(ctx, a.p.ID, g, a.guess(t, g))
		require.ErrorIs(t, err, errCrashed)
		a.clk.add(2 * time.Minute)
		var late error
		if round == 20 {
			// The late step commits inside the sweep's transaction, after
			// its read of the guess's record: the sweep runs again, finds
			// the guess recorded and leaves the hold held.
			once := sync.Once{}
			a.away.hooks.inVoid = func(string) { once.Do(func() { _, late = rest(ctx) }) }
			_, err = a.s.settleHold(ctx, a.hk, a.rk, guess)
			require.NoError(t, err)
			a.away.hooks.inVoid = nil
			require.NoError(t, late)
		} else {
			var wg sync.WaitGroup
			wg.Go(func() { _, late = rest(ctx) })
			wg.Go(func() {
				_, err := a.s.settleHold(ctx, a.hk, a.rk, guess)
				require.NoError(t, err)
			})
			wg.Wait()
		}
		scoreAll(t, a.away)
		_, err = a.s.settleHold(ctx, a.hk, a.rk, guess)
		require.NoError(t, err)
		h := a.hold(t, guess)
		rec, recorded, err := readJSON[guessRecord](ctx, a.away, tableGuesses, guess)
		require.NoError(t, err)
		refunds := a.rows(t, ReasonRefund, guess)
		if late == nil {
			require.True(t, recorded)
			require.Equal(t, GuessScored, rec.Status, "round %d", round)
			require.Equal(t, holdDone, h.Status, "round %d", round)
			require.Zero(t, refunds, "round %d", round)
			outcomes["scored"]++
		} else {
			require.ErrorIs(t, late, ErrUnavailable, "round %d", round)
			require.Equal(t, holdRefunded, h.Status, "round %d", round)
			require.Equal(t, 1, refunds, "round %d", round)
			if recorded {
				require.Equal(t, GuessRefused, rec.Status, "round %d", round)
			}
			outcomes["refunded"]++
		}
	}
	t.Logf("outcomes: %v", outcomes)
	require.NotZero(t, outcomes["scored"])
	a.balanced(t)
	// Every key is accounted for: 150 granted, 3 for each scored guess.
	require.Equal(t, int64(acrossKeys+100-3*outcomes["scored"]), a.keys(t))
}

// A prize of a game of another shard is credited to the winner's home
// wallet once, however often the settlement and the sweep run.
func TestAcrossPrizeCreditedOnce(t *testing.T) {
	t.Parallel()
	a := newAcross(t, RoomSpec{Prize: 70})
	g := a.join(t)
	rc, err := a.s.Submit(ctx, a.p.ID, g, codes(secretOf(t, a.away, g)))
	require.NoError(t, err)
	res, err := a.away.Score(ctx, rc.Guess)
	require.NoError(t, err)
	require.True(t, res.Cracked)
	set, err := a.away.settle(ctx, g)
	require.NoError(t, err)
	require.Equal(t, int64(70), set.Paid)
	w, err := a.s.Wallet(ctx, a.p.ID)
	require.NoError(t, err)
	require.Equal(t, int64(70), w.Diamonds)

	// Again: the settlement, the credit, the sweep.
	_, err = a.away.settle(ctx, g)
	require.NoError(t, err)
	rec, _, err := readJSON[gameRecord](ctx, a.away, tableGames, g)
	require.NoError(t, err)
	require.Equal(t, map[string]int{a.p.ID: a.hk}, rec.Remote)
	require.NoError(t, a.away.payHome(ctx, &rec))
	a.clk.add(2 * time.Minute)
	_, err = a.s.settleAcross(ctx)
	require.NoError(t, err)
	w, err = a.s.Wallet(ctx, a.p.ID)
	require.NoError(t, err)
	require.Equal(t, int64(70), w.Diamonds)
	require.Equal(t, 1, a.rows(t, ReasonPrize, g))
	a.balanced(t)

	// A credit lost after the settlement (a process that died): the sweep
	// pays it, once.
	_, err = a.s.Grant(ctx, a.p.ID, Keys, 1)
	require.NoError(t, err)
	g2 := a.join(t)
	rc, err = a.s.Submit(ctx, a.p.ID, g2, codes(secretOf(t, a.away, g2)))
	require.NoError(t, err)
	_, err = a.away.Score(ctx, rc.Guess)
	require.NoError(t, err)
	a.away.hooks.beforePayHome = func() error { return errCrashed } // died after the settlement
	_, err = a.away.settle(ctx, g2)
	require.NoError(t, err)
	a.away.hooks.beforePayHome = nil
	require.Zero(t, a.rows(t, ReasonPrize, g2))
	a.clk.add(2 * time.Minute)
	_, err = a.s.settleAcross(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, a.rows(t, ReasonPrize, g2))
	w, err = a.s.Wallet(ctx, a.p.ID)
	require.NoError(t, err)
	require.Equal(t, int64(140), w.Diamonds)
	a.balanced(t)
}
