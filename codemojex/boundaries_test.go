package codemojex

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/echomqtest"
)

// raceTrials is how many rounds each race below runs.
const raceTrials = 20

// twoEngines returns two engines on one queue, each on a client of its own
// (two processes), sharing the test clock.
func twoEngines(t *testing.T, cfg Config) (*Engine, *Engine, *clock) {
	t.Helper()
	clk := &clock{t: time.Now()}
	cfg.Queue, cfg.Clock, cfg.Logger = echomqtest.Queue(t), clk.now, quiet
	url := echomqtest.Shared(t).URL()
	a, err := New(connect(t, url), &cfg)
	require.NoError(t, err)
	b, err := New(connect(t, url), &cfg)
	require.NoError(t, err)
	return a, b, clk
}

// race runs fns at once and waits for them.
func race(fns ...func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, fn := range fns {
		wg.Go(func() {
			<-start // bounded: race closes start right after it starts the racers
			fn()
		})
	}
	close(start)
	wg.Wait()
}

// stagger delays a racer by a step per trial (0 to 1.9ms), so that a race
// whose sides differ in length still meets both orders.
func stagger(trial int) {
	time.Sleep(time.Duration(trial%20) * 100 * time.Microsecond) // sleep: the racers' order is the subject
}

// Two joins of one player to one game, from two processes, end with
// exactly one join: one player-joined, one member record, one caller told
// it joined and the other that it had.
func TestJoinRaceJoinsOnce(t *testing.T) {
	t.Parallel()
	e1, e2, _ := twoEngines(t, Config{})
	a := signIn(t, e1, "starter", 0)
	for trial := range raceTrials {
		r := room(t, e1, RoomSpec{})
		game := join(t, e1, a, r)
		b := signIn(t, e1, "b"+itoa(int64(trial)), 0)
		var got [2]Joined
		race(
			func() { var err error; got[0], err = e1.Join(ctx, b.ID, r.ID); require.NoError(t, err) },
			func() { var err error; got[1], err = e2.Join(ctx, b.ID, r.ID); require.NoError(t, err) },
		)
		require.Equal(t, game, got[0].Game)
		require.Equal(t, game, got[1].Game)
		require.NotEqual(t, got[0].Already, got[1].Already, "trial %d: one joins, one had: %+v", trial, got)
		evs, _, err := e1.store.ReadAll(ctx, joinQuery(game, b.ID), 0)
		require.NoError(t, err)
		require.Len(t, evs, 1, "trial %d", trial)
		require.Equal(t, dcb.Tags(TagGame, game, TagPlayer, b.ID, TagRoom, r.ID), evs[0].Tags)
		m, ok, err := readJSON[member](ctx, e1, tableMembers, memberKey(game, b.ID))
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, b.Name, m.Name)
	}
}

// A join racing its game's close either comes before the close (the
// settlement counts the player) or is refused by it (the join starts the
// room's next game instead); never a member the settlement missed.
func TestJoinRacesClose(t *testing.T) {
	t.Parallel()
	e1, e2, _ := twoEngines(t, Config{})
	a := signIn(t, e1, "starter", 0)
	before, after := 0, 0
	for trial := range raceTrials {
		r := room(t, e1, RoomSpec{})
		game := join(t, e1, a, r)
		b := signIn(t, e1, "b"+itoa(int64(trial)), 0)
		var j Joined
		var s Settlement
		race(
			func() { var err error; j, err = e1.Join(ctx, b.ID, r.ID); require.NoError(t, err) },
			func() {
				stagger(trial)
				var err error
				s, err = e2.Close(ctx, game, ReasonOperator)
				require.NoError(t, err)
			},
		)
		if j.Game == game {
			before++
			require.Equal(t, 2, s.Players, "trial %d: joined before the close", trial)
		} else {
			after++
			require.True(t, j.Started, "trial %d: refused by the close, the join starts the next game", trial)
			require.Equal(t, 1, s.Players, "trial %d", trial)
		}
		closed, _, err := e1.store.ReadAll(ctx, closeQuery(game), 0)
		require.NoError(t, err)
		require.Len(t, closed, 1, "trial %d: one game-closed", trial)
		if j.Game != game {
			_, err := e1.Close(ctx, j.Game, ReasonOperator)
			require.NoError(t, err)
		}
	}
	t.Logf("%d trials: %d joins before the close, %d refused by it", raceTrials, before, after)
}

// A guess racing its game's close is either refused (nothing charged) or
// accepted before the close; an accepted one is scored into the settlement
// or, when the close came before its score, void and refunded: never
// charged for good without counting, never accepted after the close.
func TestGuessRacesClose(t *testing.T) {
	t.Parallel()
	e1, e2, _ := twoEngines(t, Config{})
	a, b := signIn(t, e1, "a", 10*raceTrials), signIn(t, e1, "b", 0)
	var refused, scored, void int
	for trial := range raceTrials {
		r := room(t, e1, RoomSpec{Prize: 10})
		game := join(t, e1, a, r)
		join(t, e1, b, r)
		s := secretOf(t, e1, game)
		var rc Receipt
		var subErr error
		race(
			func() {
				if rc, subErr = e1.Submit(ctx, a.ID, game, codes(s, 1, 0)); subErr == nil {
					scoreAll(t, e1) // the worker, racing the close too
				}
			},
			func() {
				stagger(trial)
				_, err := e2.Close(ctx, game, ReasonOperator)
				require.NoError(t, err)
			},
		)
		scoreAll(t, e1)
		v, err := e1.Game(ctx, game)
		require.NoError(t, err)
		require.Equal(t, StatusSettled, v.Status)
		if subErr != nil {
			require.ErrorIs(t, subErr, ErrClosed, "trial %d", trial)
			refused++
			continue
		}
		g, ok, err := readJSON[guessRecord](ctx, e1, tableGuesses, rc.Guess)
		require.NoError(t, err)
		require.True(t, ok)
		set, err := e1.Close(ctx, game, ReasonOperator)
		require.ErrorIs(t, err, ErrAlreadyClosed)
		switch g.Status {
		case GuessScored:
			scored++
			require.Equal(t, 1, set.Guesses, "trial %d: the scored guess counts", trial)
		case GuessVoid:
			void++
			require.Equal(t, 0, set.Guesses, "trial %d", trial)
		default:
			t.Fatalf("trial %d: guess %s left %s", trial, g.ID, g.Status)
		}
	}
	require.Zero(t, queuedGuesses(t, e1))
	rows := ledgerRows(t, e1)
	charged, refunds := 0, 0
	for _, row := range rows {
		switch row.Reason {
		case ReasonGuess:
			charged++
		case ReasonRefund:
			refunds++
		}
	}
	require.Equal(t, scored+void, charged, "a refused guess is never charged")
	require.Equal(t, void, refunds, "a void guess is refunded")
	requireLedgerBalances(t, e1)
	t.Logf("%d trials: %d refused, %d scored, %d void (refunded)", raceTrials, refused, scored, void)
}

// Concurrent first sign-ins of one identity, from two processes, make one
// player: every caller gets it, one player-registered, the starter keys
// granted once.
func TestSignInRaceMakesOnePlayer(t *testing.T) {
	t.Parallel()
	e1, e2, _ := twoEngines(t, Config{StarterKeys: 5})
	for trial := range raceTrials {
		id := Identity{Provider: "dev", Subject: "ada" + itoa(int64(trial))}
		var got [8]Player
		fns := make([]func(), len(got))
		for i := range fns {
			e := []*Engine{e1, e2}[i%2]
			fns[i] = func() {
				p, _, err := e.SignIn(ctx, id)
				require.NoError(t, err)
				got[i] = p
			}
		}
		race(fns...)
		for _, p := range got {
			require.Equal(t, got[0], p, "trial %d", trial)
		}
		w, err := e1.Wallet(ctx, got[0].ID)
		require.NoError(t, err)
		require.Equal(t, int64(5), w.Keys, "trial %d: starter keys once", trial)
		evs, _, err := e1.store.ReadAll(ctx, dcb.Query{{Types: []string{StreamPlayerRegistered}, Tags: []string{identityTag(id.Provider, id.Subject)}}}, 0)
		require.NoError(t, err)
		require.Len(t, evs, 1)
		require.Equal(t, got[0].ID, evs[0].Fields.Value("player"))
	}
	requireLedgerBalances(t, e1)
}

// A process that died between a join's event and its member record, or a
// close's record and its game-closed, is repaired by the next call: the
// player's next join writes the record, the next settlement the event.
func TestBoundaryRepairs(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	a, b := signIn(t, e, "a", 0), signIn(t, e, "b", 0)
	r := room(t, e, RoomSpec{})
	game := join(t, e, a, r)
	_, err := e.store.Append(ctx, []dcb.Append{{
		Stream: StreamPlayerJoined, Tags: dcb.Tags(TagGame, game, TagPlayer, b.ID, TagRoom, r.ID),
		Fields: echomq.F("game", game, "room", r.ID, "player", b.ID, "name", b.Name, "joined_ms", "1"),
	}}, nil)
	require.NoError(t, err)
	j, err := e.Join(ctx, b.ID, r.ID)
	require.NoError(t, err)
	require.True(t, j.Already)
	m, ok, err := readJSON[member](ctx, e, tableMembers, memberKey(game, b.ID))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, int64(1), m.JoinedMS)

	// The close's record moved, its closer died before game-closed.
	require.NoError(t, e.update(ctx, func(ctx2 context.Context, t2 *txn) error {
		g, _, err := getJSON[gameRecord](ctx2, t2, tableGames, game)
		if err != nil {
			return err
		}
		g.Status, g.Reason = StatusClosing, ReasonOperator
		return t2.put(tableGames, game, g)
	}))
	c := signIn(t, e, "c", 0)
	j, err = e.Join(ctx, c.ID, r.ID) // settles the closing game first, then starts the next
	require.NoError(t, err)
	require.True(t, j.Started)
	require.NotEqual(t, game, j.Game)
	closed, _, err := e.store.ReadAll(ctx, closeQuery(game), 0)
	require.NoError(t, err)
	require.Len(t, closed, 1)
	_, err = e.Close(ctx, game, ReasonOperator)
	require.ErrorIs(t, err, ErrAlreadyClosed)
}

// The events appended inside transactions are tagged with the game, player
// and room they are about, so a query sees them beside the decided ones:
// a game's whole story in order, a player's ledger rows, a room's opening.
func TestTransactionEventsTagged(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	a, b := signIn(t, e, "a", 5), signIn(t, e, "b", 5)
	r := room(t, e, RoomSpec{Prize: 10})
	game := join(t, e, a, r)
	join(t, e, b, r)
	s := secretOf(t, e, game)
	_, err := e.Submit(ctx, a.ID, game, codes(s, 1, 0))
	require.NoError(t, err)
	require.Equal(t, 1, scoreAll(t, e))
	_, err = e.Close(ctx, game, ReasonOperator)
	require.NoError(t, err)

	evs, _, err := e.store.ReadAll(ctx, dcb.Query{{Tags: dcb.Tags(TagGame, game)}}, 0)
	require.NoError(t, err)
	var story []string
	for _, ev := range evs {
		story = append(story, ev.Stream)
	}
	require.Equal(t, []string{StreamGameStarted, StreamPlayerJoined, StreamGuessAccepted, StreamGuessScored, StreamGameClosed, StreamGameSettled}, story)
	require.Equal(t, dcb.Tags(TagGame, game, TagPlayer, a.ID, TagRoom, r.ID), evs[3].Tags)

	for _, p := range []Player{a, b} {
		rows, _, err := e.store.ReadAll(ctx, dcb.Query{{Types: []string{StreamLedger}, Tags: dcb.Tags(TagPlayer, p.ID)}}, 0)
		require.NoError(t, err)
		var want []string
		for _, row := range ledgerRows(t, e) {
			if row.Player == p.ID {
				want = append(want, row.Txn)
			}
		}
		var got []string
		for _, ev := range rows {
			got = append(got, ev.Fields.Value("txn"))
		}
		require.Equal(t, want, got, "ledger rows of %s", p.Name)
	}
	opened, _, err := e.store.ReadAll(ctx, dcb.Query{{Types: []string{StreamRoomOpened}, Tags: dcb.Tags(TagRoom, r.ID)}}, 0)
	require.NoError(t, err)
	require.Len(t, opened, 1)
}
