package codemojex

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// 50 closers race on one game: the worker scoring a 600 crack, sweeps
// after the timer ran out, and operators. The game closes once: one
// game-settled, the prize paid once, and exactly one closer is told it
// closed the game.
func TestConcurrentClosesPayOnce(t *testing.T) {
	t.Parallel()
	e, clk := setup(t)
	r := room(t, e, RoomSpec{Prize: 1000, Duration: time.Minute})
	a, b := signIn(t, e, "a", 5), signIn(t, e, "b", 5)
	game := join(t, e, a, r)
	join(t, e, b, r)
	s := secretOf(t, e, game)
	_, err := e.Submit(ctx, a.ID, game, codes(s, 1, 0))
	require.NoError(t, err)
	require.Equal(t, 1, scoreAll(t, e))
	_, err = e.Submit(ctx, b.ID, game, codes(s)) // the crack, not scored yet
	require.NoError(t, err)
	jobs, err := e.jobs.Claim(ctx, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	clk.add(time.Minute) // the sweep may close it too

	var (
		mu      sync.Mutex
		winners []string
	)
	won := func(who string) {
		mu.Lock()
		winners = append(winners, who)
		mu.Unlock()
	}
	fns := []func(){func() {
		res, err := e.Score(ctx, string(jobs[0].Payload))
		require.NoError(t, err)
		if res.Cracked {
			won("crack")
			_, err := e.settle(ctx, game)
			require.NoError(t, err)
		}
	}}
	for i := range 49 {
		fns = append(fns, func() {
			if i%2 == 0 {
				res, err := e.Sweep(ctx)
				require.NoError(t, err)
				if res.Closed == 1 {
					won("sweep")
				}
				return
			}
			_, err := e.Close(ctx, game, ReasonOperator)
			if err == nil {
				won("operator")
			} else {
				require.ErrorIs(t, err, ErrAlreadyClosed, "%v", err)
			}
		})
	}
	race(fns...)
	require.Len(t, winners, 1, "exactly one closer: %v", winners)

	settled := events(t, e, StreamGameSettled)
	require.Len(t, settled, 1)
	var prizes []LedgerRow
	for _, row := range ledgerRows(t, e) {
		if row.Reason == ReasonPrize {
			prizes = append(prizes, row)
		}
	}
	require.Len(t, prizes, 1)
	require.Equal(t, int64(1000), prizes[0].Delta)
	want := a.ID // closed before the crack was scored: a's 560 wins, b's guess is void
	if winners[0] == "crack" {
		want = b.ID
	}
	require.Equal(t, want, prizes[0].Player)
	v, err := e.Game(ctx, game)
	require.NoError(t, err)
	require.Equal(t, StatusSettled, v.Status)
	requireLedgerBalances(t, e)
}
