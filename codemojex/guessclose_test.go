package codemojex

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/dcb"
)

// Many guesses, from two processes, race the close of their game, round
// after round, while a worker scores: every guess is either refused with
// ErrClosed (nothing charged, nothing in the log) or accepted before the
// close (its guess-accepted lies before the game's game-closed), charged
// once, and then scored once into the settlement or void and refunded
// once. Wallets equal their ledgers.
func TestGuessesRaceClose(t *testing.T) {
	t.Parallel()
	e1, e2, _ := twoEngines(t, Config{})
	const players, each = 6, 2
	ps := make([]Player, players)
	for i := range ps {
		ps[i] = signIn(t, e1, "p"+itoa(int64(i)), players*each*raceTrials)
	}
	var refused, scored, void int
	for trial := range raceTrials {
		r := room(t, e1, RoomSpec{Prize: 10})
		game := join(t, e1, ps[0], r)
		for _, p := range ps[1:] {
			join(t, e1, p, r)
		}
		s := secretOf(t, e1, game)
		var (
			mu       sync.Mutex
			receipts []Receipt
			closed   int
			stop     atomic.Bool
			answered = make(chan struct{}, players*each)
		)
		fns := []func(){
			func() {
				// The close comes after trial%8 answers, so the rounds
				// meet every share of accepted and refused guesses.
				for range trial % 8 {
					select {
					case <-answered:
					case <-time.After(time.Minute):
						t.Errorf("trial %d: no answer to a guess within a minute", trial)
						return
					}
				}
				stagger(trial)
				_, err := e2.Close(ctx, game, ReasonOperator)
				require.NoError(t, err)
			},
			func() { // the worker, racing the close too
				for !stop.Load() {
					scoreAll(t, e1)
				}
			},
		}
		var subs sync.WaitGroup
		for i, p := range ps {
			for k := range each {
				e := []*Engine{e1, e2}[(i+k)%2]
				subs.Add(1)
				fns = append(fns, func() {
					defer subs.Done()
					rc, err := e.Submit(ctx, p.ID, game, codes(s, 1, 0))
					answered <- struct{}{}
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						require.ErrorIs(t, err, ErrClosed, "trial %d", trial)
						closed++
						return
					}
					receipts = append(receipts, rc)
				})
			}
		}
		fns = append(fns, func() { subs.Wait(); stop.Store(true) })
		race(fns...)
		scoreAll(t, e1)
		refused += closed
		require.Equal(t, players*each, closed+len(receipts))

		// The game's decisions in queue order: every accepted guess lies
		// before the one game-closed, and every one has its receipt.
		evs, _, err := e1.store.ReadAll(ctx, dcb.Query{
			{Types: []string{StreamGuessAccepted}, Tags: dcb.Tags(TagGame, game)},
			{Types: []string{StreamGameClosed}, Tags: dcb.Tags(TagGame, game)},
		}, 0)
		require.NoError(t, err)
		require.NotEmpty(t, evs)
		require.Equal(t, StreamGameClosed, evs[len(evs)-1].Stream, "trial %d: nothing accepted after the close", trial)
		require.Len(t, evs, len(receipts)+1, "trial %d: one guess-accepted per receipt, one game-closed", trial)
		accepted := map[string]bool{}
		for _, ev := range evs[:len(evs)-1] {
			require.Equal(t, StreamGuessAccepted, ev.Stream)
			accepted[ev.Fields.Value("guess")] = true
		}

		set, err := e1.Close(ctx, game, ReasonOperator)
		require.ErrorIs(t, err, ErrAlreadyClosed)
		n := 0
		for _, rc := range receipts {
			require.True(t, accepted[rc.Guess], "trial %d: receipt %s without its acceptance", trial, rc.Guess)
			g, ok, err := readJSON[guessRecord](ctx, e1, tableGuesses, rc.Guess)
			require.NoError(t, err)
			require.True(t, ok)
			switch g.Status {
			case GuessScored:
				scored++
				n++
			case GuessVoid:
				void++
			default:
				t.Fatalf("trial %d: guess %s left %s", trial, g.ID, g.Status)
			}
		}
		require.Equal(t, n, set.Guesses, "trial %d: the settlement counts the scored guesses", trial)
	}
	require.Zero(t, queuedGuesses(t, e1))

	// Per guess: one charge; one refund when void, none when scored; one
	// guess-scored when scored.
	charges, refunds := map[string]int{}, map[string]int{}
	for _, row := range ledgerRows(t, e1) {
		switch row.Reason {
		case ReasonGuess:
			charges[row.Ref]++
		case ReasonRefund:
			refunds[row.Ref]++
		}
	}
	scoredEvs := map[string]int{}
	for _, ev := range events(t, e1, StreamGuessScored) {
		scoredEvs[ev.Fields.Value("guess")]++
	}
	require.Len(t, charges, scored+void, "a refused guess is never charged")
	require.Len(t, events(t, e1, StreamGuessAccepted), scored+void, "a refused guess leaves no guess-accepted")
	requireAcceptedEnded(t, e1)
	for guess, n := range charges {
		require.Equal(t, 1, n, "guess %s charged once", guess)
		g, ok, err := readJSON[guessRecord](ctx, e1, tableGuesses, guess)
		require.NoError(t, err)
		require.True(t, ok)
		if g.Status == GuessScored {
			require.Zero(t, refunds[guess], "scored guess %s refunded", guess)
			require.Equal(t, 1, scoredEvs[guess], "guess %s scored once", guess)
		} else {
			require.Equal(t, 1, refunds[guess], "void guess %s refunded once", guess)
			require.Zero(t, scoredEvs[guess], "void guess %s scored", guess)
		}
	}
	requireLedgerBalances(t, e1)
	t.Logf("%d trials of %d guesses: %d refused, %d scored, %d void (refunded)", raceTrials, players*each, refused, scored, void)
}

// The game's events decide, not its record: with game-closed in the log
// and the record still open (a close whose record a test left behind), a
// guess is refused with ErrClosed, nothing charged and nothing accepted.
func TestGuessRefusedByGameClosedEvent(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	a := signIn(t, e, "a", 5)
	r := room(t, e, RoomSpec{})
	game := join(t, e, a, r)
	g, ok, err := readJSON[gameRecord](ctx, e, tableGames, game)
	require.NoError(t, err)
	require.True(t, ok)
	g.Reason = ReasonOperator
	require.NoError(t, e.ensureClosed(ctx, g))
	_, err = e.Submit(ctx, a.ID, game, codes(secretOf(t, e, game), 1, 0))
	require.ErrorIs(t, err, ErrClosed)
	w, err := e.Wallet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, int64(5), w.Keys, "nothing charged")
	require.Empty(t, events(t, e, StreamGuessAccepted))
	requireLedgerBalances(t, e)
}

// A submit is keyed by its guess: the same guess twice in a batch, or
// again in a later batch (a retry), is accepted and charged once and
// answered from its record.
func TestSubmitKeyedByGuess(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	a := signIn(t, e, "a", 5)
	r := room(t, e, RoomSpec{})
	game := join(t, e, a, r)
	guess, err := e.mint(ctx, BrandGuess)
	require.NoError(t, err)
	job, err := e.client.MintID(ctx, e.queue, BrandJob)
	require.NoError(t, err)
	req := submitReq{player: a.ID, game: game, codes: codes(secretOf(t, e, game), 1, 0), guess: guess, job: job}
	first := e.submitBatch(ctx, []submitReq{req, req}) // twice in one batch
	again := e.submitBatch(ctx, []submitReq{req, req}) // and in a batch after it
	require.NoError(t, first[0].err)
	require.Equal(t, int64(4), first[0].rc.Balance.Keys)
	for _, res := range append(first[1:], again...) {
		require.NoError(t, res.err)
		require.Equal(t, first[0].rc, res.rc)
	}
	charges := 0
	for _, row := range ledgerRows(t, e) {
		if row.Reason == ReasonGuess {
			charges++
		}
	}
	require.Equal(t, 1, charges)
	require.Len(t, events(t, e, StreamGuessAccepted), 1)
	requireLedgerBalances(t, e)
}
