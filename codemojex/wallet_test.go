package codemojex

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// Diamonds convert to keys at 10:1 in multiples of 10; a refused
// conversion leaves the wallet as it was.
func TestConvert(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	p := signIn(t, e, "p", 0)
	_, err := e.Grant(ctx, p.ID, Diamonds, 25)
	require.NoError(t, err)
	w, err := e.Convert(ctx, p.ID, 20)
	require.NoError(t, err)
	require.Equal(t, Wallet{Keys: 2, Diamonds: 5}, w)
	_, err = e.Convert(ctx, p.ID, 5)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	_, err = e.Convert(ctx, p.ID, 10)
	require.ErrorIs(t, err, ErrInsufficient)
	w, err = e.Wallet(ctx, p.ID)
	require.NoError(t, err)
	require.Equal(t, Wallet{Keys: 2, Diamonds: 5}, w)
	rows := ledgerRows(t, e)
	require.Equal(t, []string{ReasonGrant, ReasonConvert, ReasonConvert}, reasons(rows))
	require.Equal(t, rows[1].Ref, rows[2].Ref, "the two rows of a conversion share a reference")
	requireLedgerBalances(t, e)
}

// A paid room charges keys and never clips; a free room charges clips and
// never keys.
func TestFeeCurrencies(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	paid := room(t, e, RoomSpec{Fee: 2})
	free := room(t, e, RoomSpec{Free: true, Fee: 3})
	p := signIn(t, e, "p", 10)
	_, err := e.Grant(ctx, p.ID, Clips, 10)
	require.NoError(t, err)
	for _, r := range []Room{paid, free} {
		g := join(t, e, p, r)
		_, err := e.Submit(ctx, p.ID, g, codes(secretOf(t, e, g), 1, 0))
		require.NoError(t, err)
	}
	w, err := e.Wallet(ctx, p.ID)
	require.NoError(t, err)
	require.Equal(t, Wallet{Keys: 8, Clips: 7}, w)
	requireLedgerBalances(t, e)
}

// A sign-in resolves one identity to one player, even concurrently, and
// grants the starter balances once; a session is revoked by sign-out.
func TestSignIn(t *testing.T) {
	t.Parallel()
	e, err := New(connect(t, echomqtest.Shared(t).URL()), &Config{Queue: echomqtest.Queue(t), StarterKeys: 3, StarterClips: 7, Logger: quiet})
	require.NoError(t, err)
	type out struct {
		p     Player
		token string
	}
	res := make([]out, 6)
	done := make(chan struct{})
	for i := range res {
		go func() {
			defer func() { done <- struct{}{} }()
			p, tok, err := e.SignIn(ctx, Identity{Provider: "dev", Subject: "zoe"})
			if !assert.NoError(t, err) {
				return
			}
			res[i] = out{p, tok}
		}()
	}
	for range res {
		echomqtest.Recv(t, done, 30*time.Second, "a sign-in")
	}
	for _, r := range res {
		require.Equal(t, res[0].p, r.p)
		got, err := e.Authenticate(ctx, r.token)
		require.NoError(t, err)
		require.Equal(t, r.p, got)
	}
	w, err := e.Wallet(ctx, res[0].p.ID)
	require.NoError(t, err)
	require.Equal(t, Wallet{Keys: 3, Clips: 7}, w)
	require.NoError(t, e.SignOut(ctx, res[0].token))
	_, err = e.Authenticate(ctx, res[0].token)
	require.ErrorIs(t, err, ErrUnauthorized)
	_, err = e.Authenticate(ctx, res[1].token)
	require.NoError(t, err, "other sessions stay")
	requireLedgerBalances(t, e)
}

// FindPlayers matches part of a name, case folded, up to the limit; a
// blank query is refused.
func TestFindPlayers(t *testing.T) {
	t.Parallel()
	e, _ := setup(t)
	alice, alina := signIn(t, e, "Alice", 0), signIn(t, e, "alina", 0)
	signIn(t, e, "bob", 0)
	got, err := e.FindPlayers(ctx, " ALI ", 0)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{alice.ID, alina.ID}, []string{got[0].ID, got[1].ID})
	require.Len(t, got, 2)
	got, err = e.FindPlayers(ctx, "ali", 1)
	require.NoError(t, err)
	require.Len(t, got, 1)
	got, err = e.FindPlayers(ctx, "zed", 5)
	require.NoError(t, err)
	require.Empty(t, got)
	_, err = e.FindPlayers(ctx, "  ", 5)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}
