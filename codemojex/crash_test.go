package codemojex

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// A scoring worker killed with SIGKILL in the middle of a job (before its
// transaction commits, or after the commit but before the job is acked):
// the job comes back after its lease, and the guess is scored once, the
// player's attempts and best counted once, one guess-scored appended.
func TestWorkerKilledMidJob(t *testing.T) {
	t.Parallel()
	for _, stage := range []string{"before", "after"} {
		t.Run(stage, func(t *testing.T) {
			t.Parallel()
			srv := echomqtest.Shared(t)
			e, _ := setup(t)
			r := room(t, e, RoomSpec{Prize: 50})
			a, b := signIn(t, e, "a", 5), signIn(t, e, "b", 5)
			game := join(t, e, a, r)
			join(t, e, b, r)
			s := secretOf(t, e, game)
			first, err := e.Submit(ctx, a.ID, game, codes(s, 1, 0)) // 560
			require.NoError(t, err)
			second, err := e.Submit(ctx, a.ID, game, codes(s, 2, 1, 0)) // 520, behind it on the lane
			require.NoError(t, err)

			stopped, kill := startWorkerProcess(t, srv.URL(), e.queue, stage)
			require.Equal(t, first.Guess, stopped, "the lane serves its first job first")
			kill()

			w, err := e.Worker(&lanes.WorkerConfig{Concurrency: 2, JanitorInterval: 50 * time.Millisecond, Logger: quiet})
			require.NoError(t, err)
			require.NoError(t, w.Start(ctx))
			defer func() { require.NoError(t, w.Stop(ctx)) }()
			waitFor(t, func() bool {
				g, err := e.GuessOf(ctx, a.ID, second.Guess)
				require.NoError(t, err)
				return g.Status == GuessScored
			})

			g, err := e.GuessOf(ctx, a.ID, first.Guess)
			require.NoError(t, err)
			require.Equal(t, GuessScored, g.Status)
			require.Equal(t, 1, g.Attempt)
			m, ok, err := e.Standing(ctx, game, a.ID)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, 2, m.Attempts, "each guess counted once")
			require.Equal(t, 560, m.Best)
			scored := events(t, e, StreamGuessScored)
			require.Len(t, scored, 2)
			require.Equal(t, first.Guess, scored[0].Fields.Value("guess"))
			require.Equal(t, second.Guess, scored[1].Fields.Value("guess"))
			stats, err := e.jobs.Stats(ctx)
			require.NoError(t, err)
			require.GreaterOrEqual(t, stats.Reaped, int64(1), "the killed worker's lease lapsed")
			require.Equal(t, int64(2), stats.Completed)
			requireLedgerBalances(t, e)
		})
	}
}

// A redelivered job (scored again by hand) changes nothing.
func TestScoreTwiceCountsOnce(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	r := room(t, e, RoomSpec{})
	a := signIn(t, e, "a", 5)
	game := join(t, e, a, r)
	rc, err := e.Submit(ctx, a.ID, game, codes(secretOf(t, e, game), 1, 0))
	require.NoError(t, err)
	first, err := e.Score(ctx, rc.Guess)
	require.NoError(t, err)
	require.False(t, first.Again)
	again, err := e.Score(ctx, rc.Guess)
	require.NoError(t, err)
	require.True(t, again.Again)
	require.Equal(t, first.Points, again.Points)
	m, _, err := e.Standing(ctx, game, a.ID)
	require.NoError(t, err)
	require.Equal(t, 1, m.Attempts)
	require.Len(t, events(t, e, StreamGuessScored), 1)
}

// When the enqueue fails after the charge committed, the charge is
// refunded and the guess answers ErrUnavailable.
func TestEnqueueFailureRefunds(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	r := room(t, e, RoomSpec{})
	a := signIn(t, e, "a", 2)
	game := join(t, e, a, r)
	e.setBeforeQueue(func(string) error { return errors.New("engine gone") })
	_, err := e.Submit(ctx, a.ID, game, codes(secretOf(t, e, game)))
	require.ErrorIs(t, err, ErrUnavailable)
	w, err := e.Wallet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, int64(2), w.Keys)
	rows := ledgerRows(t, e)
	require.Equal(t, []string{ReasonGrant, ReasonGuess, ReasonRefund}, reasons(rows))
	require.Zero(t, queuedGuesses(t, e), "refunded, so no longer queued")
	requireLedgerBalances(t, e)
}

// A guess charged by a process that died before the enqueue is queued
// again by the sweep's requeue, and scored once.
func TestRequeueLostGuess(t *testing.T) {
	t.Parallel()
	e, clk := setup(t)
	r := room(t, e, RoomSpec{})
	a := signIn(t, e, "a", 2)
	game := join(t, e, a, r)
	e.setBeforeQueue(func(string) error { return errCrashed })
	rc, err := e.Submit(ctx, a.ID, game, codes(secretOf(t, e, game), 1, 0))
	require.NoError(t, err)
	e.setBeforeQueue(nil)
	require.Zero(t, scoreAll(t, e), "no job was queued")
	n, err := e.Requeue(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "too early")
	clk.add(e.cfg.PendingAfter)
	n, err = e.Requeue(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = e.Requeue(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "the job is queued: a duplicate")
	require.Equal(t, 1, scoreAll(t, e))
	g, err := e.GuessOf(ctx, a.ID, rc.Guess)
	require.NoError(t, err)
	require.Equal(t, GuessScored, g.Status)
	n, err = e.Requeue(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a scored guess is not pending")
}

func reasons(rows []LedgerRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Reason
	}
	return out
}

// waitFor polls cond until it holds (at most 20s).
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	echomqtest.WaitFor(t, 20*time.Second, "the condition", cond)
}

// A guess whose scoring job died (it failed every attempt) is refunded by
// the sweep's requeue instead of staying charged and pending for good; a
// retry of the dead job then changes nothing.
func TestRequeueRefundsDeadJob(t *testing.T) {
	t.Parallel()
	e, clk := setup(t)
	r := room(t, e, RoomSpec{})
	a := signIn(t, e, "a", 2)
	game := join(t, e, a, r)
	rc, err := e.Submit(ctx, a.ID, game, codes(secretOf(t, e, game), 1, 0))
	require.NoError(t, err)
	jobs, err := e.Jobs().Claim(ctx, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.NoError(t, e.Jobs().Kill(ctx, jobs[0], errCrashed))
	before, err := e.Wallet(ctx, a.ID)
	require.NoError(t, err)

	clk.add(e.cfg.PendingAfter)
	n, err := e.Requeue(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "nothing queued")
	g, err := e.GuessOf(ctx, a.ID, rc.Guess)
	require.NoError(t, err)
	require.Equal(t, GuessRefunded, g.Status)
	after, err := e.Wallet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, before.Keys+rc.Charged, after.Keys, "the fee back")
	require.Zero(t, queuedGuesses(t, e), "no longer pending")

	require.NoError(t, e.Jobs().RetryDead(ctx, jobs[0].ID))
	require.Equal(t, 1, scoreAll(t, e), "the retried job runs")
	require.Empty(t, events(t, e, StreamGuessScored), "and scores nothing")
	g, err = e.GuessOf(ctx, a.ID, rc.Guess)
	require.NoError(t, err)
	require.Equal(t, GuessRefunded, g.Status)
	requireLedgerBalances(t, e)
}

// A guess that stays queued (its job waits, unscored) holds the requeue
// cursor before its ledger row but does not block the requeue of the lost
// guesses booked after it; once every guess is settled the cursor moves
// past them all, and a requeue then reads nothing it read before.
func TestRequeueBehindAQueuedGuess(t *testing.T) {
	t.Parallel()
	// The ledger judged 500 guesses at a time (all at once here), and one
	// at a time (the cursor's state carried from chunk to chunk).
	for _, chunk := range []int{0, 1} {
		t.Run(fmt.Sprintf("chunk %d", chunk), func(t *testing.T) {
			t.Parallel()
			requeueBehindAQueuedGuess(t, chunk)
		})
	}
}

func requeueBehindAQueuedGuess(t *testing.T, chunk int) {
	e, clk := setup(t)
	e.hooks.requeueChunk = chunk
	r := room(t, e, RoomSpec{})
	a := signIn(t, e, "a", 3)
	b := signIn(t, e, "b", 3)
	ga, gb := join(t, e, a, r), join(t, e, b, r)
	require.Equal(t, ga, gb)
	secret := secretOf(t, e, ga)
	cursor := func() string {
		c, _, err := readJSON[requeueCursor](ctx, e, tableCursors, cursorRequeue)
		require.NoError(t, err)
		return c.After
	}
	entryOf := func(guess string) echomq.EntryID {
		for _, ev := range events(t, e, StreamLedger) {
			if ev.Fields.Value("reason") == ReasonGuess && ev.Fields.Value("ref") == guess {
				return ev.Entry
			}
		}
		t.Fatalf("no ledger row for %s", guess)
		return echomq.EntryID{}
	}

	// a's guess is queued and stays so (nobody scores it yet).
	held, err := e.Submit(ctx, a.ID, ga, codes(secret, 1, 0))
	require.NoError(t, err)
	// b's guesses are charged by a process that dies before the enqueue.
	e.setBeforeQueue(func(string) error { return errCrashed })
	lost1, err := e.Submit(ctx, b.ID, gb, codes(secret, 2, 1, 0))
	require.NoError(t, err)
	e.setBeforeQueue(nil)

	clk.add(e.cfg.PendingAfter)
	n, err := e.Requeue(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the lost guess behind the queued one is queued again")
	if c := cursor(); c != "" {
		at, err := echomq.ParseEntryID(c)
		require.NoError(t, err)
		require.Negative(t, at.Compare(entryOf(held.Guess)), "the cursor stays before the queued guess")
	}

	// Another lost guess later: the queued one still does not block it.
	e.setBeforeQueue(func(string) error { return errCrashed })
	lost2, err := e.Submit(ctx, b.ID, gb, codes(secret, 0, 2, 1))
	require.NoError(t, err)
	e.setBeforeQueue(nil)
	clk.add(e.cfg.PendingAfter)
	n, err = e.Requeue(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the new lost guess: the others' jobs are queued")

	require.Equal(t, 3, scoreAll(t, e))
	for _, p := range []struct {
		player Player
		guess  string
	}{{a, held.Guess}, {b, lost1.Guess}, {b, lost2.Guess}} {
		g, err := e.GuessOf(ctx, p.player.ID, p.guess)
		require.NoError(t, err)
		require.Equal(t, GuessScored, g.Status)
	}
	n, err = e.Requeue(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	rows := events(t, e, StreamLedger)
	require.Equal(t, rows[len(rows)-1].Entry.String(), cursor(), "every guess settled: the cursor is at the ledger's end")
	n, err = e.Requeue(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Len(t, events(t, e, StreamGuessScored), 3, "each scored once")
	requireLedgerBalances(t, e)
}
