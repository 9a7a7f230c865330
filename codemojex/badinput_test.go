package codemojex

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/tables"
)

// Every refused guess returns its error and charges nothing: the wallet,
// the ledger, the guess records and the queue are as before.
func TestSubmitBadInput(t *testing.T) {
	t.Parallel()
	e, clk := setup(t)
	r := room(t, e, RoomSpec{Duration: time.Hour})
	member := signIn(t, e, "member", 5)
	broke := signIn(t, e, "broke", 0)
	stranger := signIn(t, e, "stranger", 5)
	game := join(t, e, member, r)
	join(t, e, broke, r)
	kb := keyboardOf(t, e, game)
	s := secretOf(t, e, game)
	offKeyboard := codes(s)
	offKeyboard[2] = "9999"
	dup := codes(s)
	dup[3] = dup[1]
	closedRoom := room(t, e, RoomSpec{})
	closedGame := join(t, e, member, closedRoom)
	_, err := e.Close(ctx, closedGame, ReasonOperator)
	require.NoError(t, err)

	cases := []struct {
		name   string
		player Player
		game   string
		codes  []string
		want   error
		reason error
	}{
		{"duplicate code", member, game, dup, rules.ErrBadGuess, rules.ErrDuplicateCode},
		{"code off the keyboard", member, game, offKeyboard, rules.ErrBadGuess, rules.ErrUnknownCode},
		{"malformed code", member, game, append(codes(s)[:5], "🐶"), rules.ErrBadGuess, rules.ErrMalformedCode},
		{"five codes", member, game, codes(s)[:5], rules.ErrBadGuess, rules.ErrWrongCount},
		{"seven codes", member, game, append(codes(s), offSecret(t, kb, s)), rules.ErrBadGuess, rules.ErrWrongCount},
		{"no balance", broke, game, codes(s), ErrInsufficient, nil},
		{"not a member", stranger, game, codes(s), ErrNotMember, nil},
		{"unknown game", member, "GAM0000000000z", codes(s), ErrNotFound, nil},
		{"not a game id", member, "ROM0000000000z", codes(s), ErrNotFound, nil},
		{"closed game", member, closedGame, codes(s), ErrClosed, nil},
		{"after expiry", member, game, codes(s), ErrExpired, nil},
	}
	before := snapshot(t, e)
	for _, c := range cases {
		if c.name == "after expiry" {
			clk.add(time.Hour)
		}
		_, err := e.Submit(ctx, c.player.ID, c.game, c.codes)
		require.ErrorIs(t, err, c.want, c.name)
		if c.reason != nil {
			require.ErrorIs(t, err, c.reason, c.name)
		}
		if errors.Is(c.want, ErrInsufficient) {
			var ie *InsufficientError
			require.ErrorAs(t, err, &ie)
			require.Equal(t, InsufficientError{Currency: Keys, Need: 1, Have: 0}, *ie)
		}
		require.Equal(t, before, snapshot(t, e), "%s: nothing may change", c.name)
	}
}

// state is what a refused act must leave unchanged.
type state struct {
	Wallets  map[string]Wallet
	Ledger   int
	Guesses  int
	Pending  int
	Enqueued int64
}

func snapshot(t testing.TB, e *Engine) state {
	t.Helper()
	st := state{Wallets: map[string]Wallet{}, Ledger: len(events(t, e, StreamLedger))}
	for rec, err := range tables.New(e.client, e.queue, tableWallets).All(ctx) {
		require.NoError(t, err)
		var w Wallet
		require.NoError(t, unmarshal(rec.Value, &w))
		st.Wallets[rec.Key] = w
	}
	keys, err := tables.New(e.client, e.queue, tableGuesses).Keys(ctx)
	require.NoError(t, err)
	st.Guesses = len(keys)
	st.Pending = queuedGuesses(t, e)
	stats, err := e.jobs.Stats(ctx)
	require.NoError(t, err)
	st.Enqueued = stats.Enqueued
	return st
}

// The other verbs refuse bad input with a typed error and write nothing.
func TestVerbsBadInput(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	p := signIn(t, e, "p", 0)
	r := room(t, e, RoomSpec{})
	before := snapshot(t, e)
	roomsBefore, err := e.Rooms(ctx)
	require.NoError(t, err)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"room without name", second(e.CreateRoom(ctx, RoomSpec{})), echomq.ErrInvalidArgument},
		{"room with unknown set", second(e.CreateRoom(ctx, RoomSpec{Name: "x", Set: "cars"})), echomq.ErrInvalidArgument},
		{"room with unknown mode", second(e.CreateRoom(ctx, RoomSpec{Name: "x", Mode: "golden"})), echomq.ErrInvalidArgument},
		{"room too short", second(e.CreateRoom(ctx, RoomSpec{Name: "x", Duration: time.Millisecond})), echomq.ErrInvalidArgument},
		{"room with negative prize", second(e.CreateRoom(ctx, RoomSpec{Name: "x", Prize: -1})), echomq.ErrInvalidArgument},
		{"room with huge fee", second(e.CreateRoom(ctx, RoomSpec{Name: "x", Fee: 5000})), echomq.ErrInvalidArgument},
		{"room with 5 cells", second(e.CreateRoom(ctx, RoomSpec{Name: "x", Cells: 5})), echomq.ErrInvalidArgument},
		{"grant of nothing", second(e.Grant(ctx, p.ID, Keys, 0)), echomq.ErrInvalidArgument},
		{"grant of a negative", second(e.Grant(ctx, p.ID, Keys, -5)), echomq.ErrInvalidArgument},
		{"grant of gold", second(e.Grant(ctx, p.ID, "gold", 5)), echomq.ErrInvalidArgument},
		{"grant to nobody", second(e.Grant(ctx, "PLR0000000000z", Keys, 5)), ErrNotFound},
		{"convert a non-multiple", second(e.Convert(ctx, p.ID, 15)), echomq.ErrInvalidArgument},
		{"convert more than held", second(e.Convert(ctx, p.ID, 20)), ErrInsufficient},
		{"join an unknown room", second(e.Join(ctx, p.ID, "ROM0000000000z")), ErrNotFound},
		{"join as nobody", second(e.Join(ctx, "PLR0000000000z", r.ID)), ErrNotFound},
		{"close an unknown game", second(e.Close(ctx, "GAM0000000000z", ReasonOperator)), ErrNotFound},
		{"sign in with a bad name", third(e.SignIn(ctx, Identity{Provider: "dev", Subject: "a b"})), echomq.ErrInvalidArgument},
		{"sign in with a bad provider", third(e.SignIn(ctx, Identity{Provider: "Dev!", Subject: "ab"})), echomq.ErrInvalidArgument},
		{"unknown session", second(e.Authenticate(ctx, "00")), ErrUnauthorized},
		{"no session", second(e.Authenticate(ctx, "")), ErrUnauthorized},
	}
	for _, c := range cases {
		require.ErrorIs(t, c.err, c.want, c.name)
	}
	require.Equal(t, before, snapshot(t, e))
	roomsAfter, err := e.Rooms(ctx)
	require.NoError(t, err)
	require.Equal(t, roomsBefore, roomsAfter)
	require.Empty(t, events(t, e, StreamGameStarted), "a refused join starts nothing")
}

func second[T any](_ T, err error) error        { return err }
func third[A, B any](_ A, _ B, err error) error { return err }
