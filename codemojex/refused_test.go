package codemojex

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
)

// A guess accepted and then refused by its charge (the player's balance
// spent, between the batch's check and its charge, by a submit of the
// player in another batch) ends in the log: its guess-refused (tagged with
// the game, the player and the room) and its record, status refused;
// nothing is charged, the caller gets the InsufficientError, and the sweep
// later finds nothing to settle.
func TestChargeRefusedAfterAcceptance(t *testing.T) {
	t.Parallel()
	e, clk := setup(t)
	r := room(t, e, RoomSpec{})
	a := signIn(t, e, "a", 1)
	game := join(t, e, a, r)
	s := secretOf(t, e, game)
	var (
		first  atomic.Bool
		held   string
		spent  Receipt
		others error
	)
	e.setBeforeCharge(func(guesses []string) error {
		if first.CompareAndSwap(false, true) {
			held = guesses[0]
			// The other submit runs in a batch of its own and spends the
			// only key before this batch charges.
			spent, others = e.Submit(ctx, a.ID, game, codes(s, 2, 1, 0))
		}
		return nil
	})
	_, err := e.Submit(ctx, a.ID, game, codes(s, 1, 0))
	var short *InsufficientError
	require.ErrorAs(t, err, &short)
	require.Equal(t, InsufficientError{Currency: Keys, Need: 1, Have: 0}, *short)
	require.NoError(t, others)
	require.Equal(t, int64(0), spent.Balance.Keys)
	e.setBeforeCharge(nil)

	rec, ok, err := readJSON[guessRecord](ctx, e, tableGuesses, held)
	require.NoError(t, err)
	require.True(t, ok, "the refused guess has its record")
	require.Equal(t, GuessRefused, rec.Status)
	require.Equal(t, RefusedInsufficient, rec.Reason)
	g, err := e.GuessOf(ctx, a.ID, held)
	require.NoError(t, err)
	require.Equal(t, GuessRefused, g.Status)

	refusals, _, err := e.store.ReadAll(ctx, dcb.Query{{Types: []string{StreamGuessRefused}, Tags: dcb.Tags(TagGame, game, TagPlayer, a.ID, TagRoom, r.ID)}}, 0)
	require.NoError(t, err)
	require.Len(t, refusals, 1)
	require.Equal(t, held, refusals[0].Fields.Value("guess"))
	require.Equal(t, RefusedInsufficient, refusals[0].Fields.Value("reason"))
	require.Equal(t, []string{ReasonGrant, ReasonGuess}, reasons(ledgerRows(t, e)), "only the other guess is charged")
	require.Equal(t, spent.Guess, ledgerRows(t, e)[1].Ref)
	requireAcceptedEnded(t, e)
	requireLedgerBalances(t, e)

	// A late charge of the same guess (a retry of its batch) refuses again.
	res := e.submitBatch(ctx, []submitReq{lateReq(t, e, held, codes(s, 1, 0))})
	require.ErrorIs(t, res[0].err, ErrInsufficient)

	clk.add(e.cfg.PendingAfter)
	n, err := e.Requeue(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "the other guess's job is queued")
	require.Len(t, events(t, e, StreamGuessRefused), 1, "the sweep refuses nothing more")
	requireAcceptedEnded(t, e)
	requireLedgerBalances(t, e)
}

// A process that dies between a guess's acceptance and its charge leaves
// a guess-accepted with no record: once it is older than PendingAfter the
// sweep refuses it (its record, status refused, and its guess-refused),
// once; a late charge of it then refuses with ErrUnavailable, nothing
// charged.
func TestSweepRefusesGuessLostAfterAcceptance(t *testing.T) {
	t.Parallel()
	e, clk := setup(t)
	r := room(t, e, RoomSpec{})
	a := signIn(t, e, "a", 2)
	game := join(t, e, a, r)
	s := secretOf(t, e, game)
	var held string
	e.setBeforeCharge(func(guesses []string) error { held = guesses[0]; return errCrashed })
	_, err := e.Submit(ctx, a.ID, game, codes(s, 1, 0))
	require.ErrorIs(t, err, errCrashed)
	e.setBeforeCharge(nil)
	_, ok, err := readJSON[guessRecord](ctx, e, tableGuesses, held)
	require.NoError(t, err)
	require.False(t, ok, "accepted, never charged")
	require.Len(t, events(t, e, StreamGuessAccepted), 1)

	n, err := e.Requeue(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Empty(t, events(t, e, StreamGuessRefused), "too early: its charge may still come")

	clk.add(e.cfg.PendingAfter)
	n, err = e.Requeue(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "nothing was charged, so nothing to queue")
	rec, ok, err := readJSON[guessRecord](ctx, e, tableGuesses, held)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, GuessRefused, rec.Status)
	require.Equal(t, RefusedLost, rec.Reason)
	refusals := events(t, e, StreamGuessRefused)
	require.Len(t, refusals, 1)
	require.Equal(t, held, refusals[0].Fields.Value("guess"))
	require.Equal(t, RefusedLost, refusals[0].Fields.Value("reason"))
	cur, ok, err := readJSON[requeueCursor](ctx, e, tableCursors, cursorAccepted)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, events(t, e, StreamGuessAccepted)[0].Entry.String(), cur.After, "the cursor moved past the settled guess")

	_, err = e.Requeue(ctx)
	require.NoError(t, err)
	require.Len(t, events(t, e, StreamGuessRefused), 1, "refused once")

	res := e.submitBatch(ctx, []submitReq{lateReq(t, e, held, codes(s, 1, 0))})
	require.ErrorIs(t, res[0].err, ErrUnavailable, "a late charge finds the guess refused")
	w, err := e.Wallet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, int64(2), w.Keys, "nothing charged")

	rc, err := e.Submit(ctx, a.ID, game, codes(s, 1, 0)) // sent again, as a new guess
	require.NoError(t, err)
	require.Equal(t, int64(1), rc.Balance.Keys)
	require.Equal(t, []string{ReasonGrant, ReasonGuess}, reasons(ledgerRows(t, e)))
	requireAcceptedEnded(t, e)
	requireLedgerBalances(t, e)
}

// A charge late past PendingAfter races the sweep that refuses its guess,
// from two processes, round after round: exactly one of them ends the
// guess. Either the charge commits (the caller gets its receipt; one
// ledger row, no guess-refused) or the refusal does (the caller gets
// ErrUnavailable; one guess-refused, nothing charged).
func TestSweepRacesLateCharge(t *testing.T) {
	t.Parallel()
	e1, e2, clk := twoEngines(t, Config{})
	r := room(t, e1, RoomSpec{Duration: MaxDuration})
	a := signIn(t, e1, "a", raceTrials)
	game := join(t, e1, a, r)
	s := secretOf(t, e1, game)
	held, release := make(chan string, 1), make(chan struct{})
	e1.setBeforeCharge(func(guesses []string) error {
		held <- guesses[0]
		select {
		case <-release:
			return nil
		case <-time.After(time.Minute):
			return errors.New("the test did not release the charge within a minute")
		}
	})
	var charged, refused int
	for trial := range raceTrials {
		type answer struct {
			rc  Receipt
			err error
		}
		answered := make(chan answer, 1)
		go func() {
			rc, err := e1.Submit(ctx, a.ID, game, codes(s, 1, 0))
			answered <- answer{rc, err}
		}()
		var guess string
		select {
		case guess = <-held:
		case <-time.After(20 * time.Second):
			t.Fatalf("trial %d: no guess accepted", trial)
		}
		clk.add(e1.cfg.PendingAfter) // the charge is late: the sweep may refuse the guess
		var got answer
		race(
			func() {
				if trial%2 == 1 {
					stagger(trial)
				}
				release <- struct{}{}
				select {
				case got = <-answered:
				case <-time.After(time.Minute):
					t.Errorf("trial %d: the submit did not return within a minute", trial)
				}
			},
			func() {
				if trial%2 == 0 {
					stagger(trial)
				}
				_, err := e2.Requeue(ctx)
				require.NoError(t, err)
			},
		)
		rec, ok, err := readJSON[guessRecord](ctx, e1, tableGuesses, guess)
		require.NoError(t, err)
		require.True(t, ok, "trial %d: the guess has its record", trial)
		if got.err == nil {
			charged++
			require.Equal(t, guess, got.rc.Guess)
			require.Equal(t, GuessQueued, rec.Status, "trial %d", trial)
		} else {
			refused++
			require.ErrorIs(t, got.err, ErrUnavailable, "trial %d", trial)
			require.Equal(t, GuessRefused, rec.Status, "trial %d", trial)
			require.Equal(t, RefusedLost, rec.Reason, "trial %d", trial)
		}
		requireAcceptedEnded(t, e1)
		requireLedgerBalances(t, e1)
	}
	w, err := e1.Wallet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, int64(raceTrials-charged), w.Keys)
	require.Len(t, events(t, e1, StreamGuessRefused), refused)
	t.Logf("%d rounds: %d charged, %d refused by the sweep", raceTrials, charged, refused)
}

// The sweep's refusal commits inside a late charge's transaction, after
// the charge read the guess's record (none yet) and before it commits: the
// charge's commit finds the record changed, runs again, and refuses with
// ErrUnavailable, nothing charged.
func TestSweepCommitsInsideLateCharge(t *testing.T) {
	t.Parallel()
	e1, e2, clk := twoEngines(t, Config{})
	r := room(t, e1, RoomSpec{})
	a := signIn(t, e1, "a", 2)
	game := join(t, e1, a, r)
	s := secretOf(t, e1, game)
	var (
		first atomic.Bool
		swept int
	)
	e1.setBeforeCharge(func([]string) error { clk.add(e1.cfg.PendingAfter); return nil })
	e1.setInCharge(func([]string) {
		if first.CompareAndSwap(false, true) {
			n, err := e2.refuseLost(ctx)
			require.NoError(t, err)
			swept = n
		}
	})
	_, err := e1.Submit(ctx, a.ID, game, codes(s, 1, 0))
	require.ErrorIs(t, err, ErrUnavailable)
	require.Equal(t, 1, swept)
	w, err := e1.Wallet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, int64(2), w.Keys, "nothing charged")
	require.Len(t, events(t, e1, StreamGuessRefused), 1)
	requireAcceptedEnded(t, e1)
	requireLedgerBalances(t, e1)
}

// A late charge commits inside the sweep's refusal of its guess, after the
// refusal read the guess's record (none yet) and before it commits: the
// refusal's commit finds the record changed, runs again, and leaves the
// charged guess alone.
func TestLateChargeCommitsInsideSweep(t *testing.T) {
	t.Parallel()
	e1, e2, clk := twoEngines(t, Config{})
	r := room(t, e1, RoomSpec{})
	a := signIn(t, e1, "a", 2)
	game := join(t, e1, a, r)
	s := secretOf(t, e1, game)
	var held string
	e1.setBeforeCharge(func(guesses []string) error { held = guesses[0]; return errCrashed })
	_, err := e1.Submit(ctx, a.ID, game, codes(s, 1, 0))
	require.ErrorIs(t, err, errCrashed)
	e1.setBeforeCharge(nil)
	clk.add(e1.cfg.PendingAfter)
	var (
		first atomic.Bool
		late  []submitRes
	)
	e2.setInRefuse(func(string) {
		if first.CompareAndSwap(false, true) {
			late = e1.submitBatch(ctx, []submitReq{lateReq(t, e1, held, codes(s, 1, 0))})
		}
	})
	n, err := e2.refuseLost(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "the guess was charged meanwhile")
	require.Len(t, late, 1)
	require.NoError(t, late[0].err)
	require.Equal(t, int64(1), late[0].rc.Balance.Keys)
	rec, ok, err := readJSON[guessRecord](ctx, e1, tableGuesses, held)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, GuessQueued, rec.Status)
	require.Empty(t, events(t, e1, StreamGuessRefused))
	requireAcceptedEnded(t, e1)
	requireLedgerBalances(t, e1)
}

// lateReq rebuilds the submit of an accepted guess from its guess-accepted,
// for a charge that comes late.
func lateReq(t testing.TB, e *Engine, guess string, cs []string) submitReq {
	t.Helper()
	for _, ev := range events(t, e, StreamGuessAccepted) {
		if ev.Fields.Value("guess") == guess {
			job, err := echomq.ParseID(ev.Fields.Value("job"))
			require.NoError(t, err)
			return submitReq{player: ev.Fields.Value("player"), game: ev.Fields.Value("game"), codes: cs, guess: guess, job: job}
		}
	}
	t.Fatalf("no guess-accepted of %s", guess)
	return submitReq{}
}

// requireAcceptedEnded checks that every guess-accepted ended in exactly
// one of its charge (a record charged, one ledger row of reason guess, no
// guess-refused) and its refusal (a record refused, one guess-refused, no
// ledger row), and that every guess-refused is of an accepted guess.
func requireAcceptedEnded(t testing.TB, e *Engine) {
	t.Helper()
	charges, refusals := map[string]int{}, map[string]int{}
	for _, row := range ledgerRows(t, e) {
		if row.Reason == ReasonGuess {
			charges[row.Ref]++
		}
	}
	for _, ev := range events(t, e, StreamGuessRefused) {
		refusals[ev.Fields.Value("guess")]++
	}
	accepted := events(t, e, StreamGuessAccepted)
	seen := 0
	for _, ev := range accepted {
		guess := ev.Fields.Value("guess")
		rec, ok, err := readJSON[guessRecord](ctx, e, tableGuesses, guess)
		require.NoError(t, err)
		require.True(t, ok, "accepted guess %s has no record", guess)
		if rec.Status == GuessRefused {
			seen++
			require.Equal(t, 1, refusals[guess], "refused guess %s: one guess-refused", guess)
			require.Zero(t, charges[guess], "refused guess %s charged", guess)
		} else {
			require.Equal(t, 1, charges[guess], "guess %s (%s) charged once", guess, rec.Status)
			require.Zero(t, refusals[guess], "charged guess %s refused", guess)
		}
	}
	require.Len(t, refusals, seen, "every guess-refused is of an accepted guess")
}
