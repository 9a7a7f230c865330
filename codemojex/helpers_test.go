package codemojex

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/tables"
)

var ctx = context.Background()

var quiet = slog.New(slog.DiscardHandler)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func connect(t testing.TB, url string) *echomq.Client {
	t.Helper()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: url, Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// setup returns an engine on a queue of its own on the shared server, with
// a test clock that starts now.
func setup(t testing.TB) (*Engine, *clock) {
	t.Helper()
	clk := &clock{t: time.Now()}
	e, err := New(connect(t, echomqtest.Shared(t).URL()), &Config{Queue: echomqtest.Queue(t), Clock: clk.now, Logger: quiet})
	require.NoError(t, err)
	return e, clk
}

// signIn creates (or finds) the dev player name with keys granted.
func signIn(t testing.TB, e *Engine, name string, keys int64) Player {
	t.Helper()
	p, _, err := e.SignIn(ctx, Identity{Provider: "dev", Subject: name})
	require.NoError(t, err)
	if keys > 0 {
		_, err = e.Grant(ctx, p.ID, Keys, keys)
		require.NoError(t, err)
	}
	return p
}

func room(t testing.TB, e *Engine, spec RoomSpec) Room {
	t.Helper()
	if spec.Name == "" {
		spec.Name = "Test room"
	}
	r, err := e.CreateRoom(ctx, spec)
	require.NoError(t, err)
	return r
}

func join(t testing.TB, e *Engine, p Player, r Room) string {
	t.Helper()
	j, err := e.Join(ctx, p.ID, r.ID)
	require.NoError(t, err)
	return j.Game
}

// secretOf reads a game's secret from its record.
func secretOf(t testing.TB, e *Engine, game string) rules.Secret {
	t.Helper()
	g, ok, err := readJSON[gameRecord](ctx, e, tableGames, game)
	require.NoError(t, err)
	require.True(t, ok)
	kb, err := rules.ParseKeyboard(g.Keyboard)
	require.NoError(t, err)
	s, err := rules.ParseSecret(kb, g.Secret)
	require.NoError(t, err)
	return s
}

func keyboardOf(t testing.TB, e *Engine, game string) []string {
	t.Helper()
	v, err := e.Game(ctx, game)
	require.NoError(t, err)
	return v.Keyboard
}

// codes returns the secret's codes with positions permuted by perm (the
// secret's position perm[i] goes to position i).
func codes(s rules.Secret, perm ...int) []string {
	out := make([]string, rules.CodeLength)
	for i := range out {
		j := i
		if i < len(perm) {
			j = perm[i]
		}
		out[i] = string(s[j])
	}
	return out
}

// offSecret returns a keyboard code not in the secret.
func offSecret(t testing.TB, kb []string, s rules.Secret) string {
	t.Helper()
	for _, c := range kb {
		if s.Index(rules.Code(c)) < 0 {
			return c
		}
	}
	t.Fatal("keyboard holds only the secret")
	return ""
}

// scoreAll scores every queued job with a claim loop (no worker), the way
// a worker would, and returns how many it scored.
func scoreAll(t testing.TB, e *Engine) int {
	t.Helper()
	n := 0
	for {
		jobs, err := e.jobs.Claim(ctx, 100, time.Minute)
		require.NoError(t, err)
		if len(jobs) == 0 {
			return n
		}
		for _, j := range jobs {
			require.NoError(t, e.handle(ctx, j))
			require.NoError(t, e.jobs.Complete(ctx, j))
			n++
		}
	}
}

// queuedGuesses counts the guesses charged and not yet scored, voided or
// refunded (status queued: their pending mark).
func queuedGuesses(t testing.TB, e *Engine) int {
	t.Helper()
	n := 0
	for rec, err := range tables.New(e.client, e.queue, tableGuesses).All(ctx) {
		require.NoError(t, err)
		var g guessRecord
		require.NoError(t, unmarshal(rec.Value, &g))
		if g.Status == GuessQueued {
			n++
		}
	}
	return n
}

// events reads a stream whole.
func events(t testing.TB, e *Engine, stream string) []echomq.Event {
	t.Helper()
	evs, err := e.Stream(stream).Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	return evs
}

func ledgerRows(t testing.TB, e *Engine) []LedgerRow {
	t.Helper()
	var rows []LedgerRow
	for _, ev := range events(t, e, StreamLedger) {
		rows = append(rows, ParseLedgerRow(ev.Fields))
	}
	return rows
}

// requireLedgerBalances checks that every wallet equals the sum of its
// ledger rows, currency by currency, and that each row's balance is the
// running sum.
func requireLedgerBalances(t testing.TB, e *Engine) {
	t.Helper()
	sums := map[string]Wallet{}
	for _, r := range ledgerRows(t, e) {
		w := sums[r.Player].add(r.Currency, r.Delta)
		require.Equal(t, w.Of(r.Currency), r.Balance, "running balance of %s %s at %s", r.Player, r.Currency, r.Txn)
		require.GreaterOrEqual(t, r.Balance, int64(0))
		sums[r.Player] = w
	}
	for rec, err := range tables.New(e.client, e.queue, tableWallets).All(ctx) {
		require.NoError(t, err)
		var w Wallet
		require.NoError(t, unmarshal(rec.Value, &w))
		require.Equal(t, sums[rec.Key], w, "wallet of %s", rec.Key)
	}
}
