package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/sim"
	"github.com/echomq/echomq/echomqtest"
)

// fault is one fault the engine goes through under a running simulation.
type fault struct {
	name string
	do   func(t *testing.T, srv *echomqtest.Server, p *echomqtest.Proxy)
}

func restartAfter(d time.Duration) fault {
	return fault{fmt.Sprintf("engine restart after %v", d), func(t *testing.T, srv *echomqtest.Server, _ *echomqtest.Proxy) {
		require.NoError(t, srv.Kill())
		time.Sleep(d) // sleep: the fault lasts d
		srv.Restart(t)
	}}
}

func pauseFor(d time.Duration) fault {
	return fault{fmt.Sprintf("engine paused %v", d), func(t *testing.T, srv *echomqtest.Server, _ *echomqtest.Proxy) {
		require.NoError(t, srv.Pause())
		time.Sleep(d) // sleep: the fault lasts d
		require.NoError(t, srv.Resume())
	}}
}

func partitionFor(d time.Duration) fault {
	return fault{fmt.Sprintf("partition %v", d), func(_ *testing.T, _ *echomqtest.Server, p *echomqtest.Proxy) {
		p.Partition()
		time.Sleep(d) // sleep: the fault lasts d
		p.Heal()
	}}
}

func latencyFor(lat, d time.Duration) fault {
	return fault{fmt.Sprintf("latency %v for %v", lat, d), func(_ *testing.T, _ *echomqtest.Server, p *echomqtest.Proxy) {
		p.SetLatency(lat)
		time.Sleep(d) // sleep: the fault lasts d
		p.SetLatency(0)
	}}
}

// TestServeRidesOutFaults is the acceptance of codemojex under faults: a
// 1000-guess simulation runs against serve on a persistent engine (through
// a proxy) while the engine is restarted and paused; serve never exits,
// every guess charged is scored exactly once or refunded once (never
// both), no guess is charged twice, and every wallet equals the sum of
// its ledger. The short version (CI) restarts the engine after 3 s and
// pauses it 3 s; EMQ_FAULTS=full adds a restart after 30 s, a 10 s pause,
// a 2 s partition and 200 ms of latency for 10 s.
func TestServeRidesOutFaults(t *testing.T) {
	t.Parallel()
	faults := []fault{restartAfter(3 * time.Second), pauseFor(3 * time.Second)}
	if os.Getenv("EMQ_FAULTS") == "full" {
		faults = []fault{
			restartAfter(3 * time.Second), pauseFor(10 * time.Second), restartAfter(30 * time.Second),
			partitionFor(2 * time.Second), latencyFor(200*time.Millisecond, 10*time.Second),
		}
	}
	srv := echomqtest.StartPersistent(t)
	proxy := echomqtest.NewProxy(t, srv.Addr())
	queue := echomqtest.Queue(t)
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, &ServeConfig{
			Addr: "127.0.0.1:0", URL: proxy.URL(), Queue: queue, OperatorToken: "op",
			DevSignIn: true, Workers: 16, Sweep: 200 * time.Millisecond, Snapshots: true, Logger: log, Out: io.Discard,
			GuessRate: Rate{PerSecond: -1}, SignInRate: Rate{PerSecond: -1}, Ready: func(u string) { ready <- u },
		})
	}()
	url := serving(t, ready, served)

	// A client of its own counts the scores, to place the faults.
	watch := connect(t, srv.URL(), queue)
	var scored atomic.Int64
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go func() {
		for wctx.Err() == nil {
			rctx, rcancel := context.WithTimeout(wctx, time.Second)
			if info, err := watch.Stream(codemojex.StreamGuessScored).Info(rctx); err == nil {
				scored.Store(info.Length)
			}
			rcancel()
			time.Sleep(50 * time.Millisecond) // sleep: the score counter's pace
		}
	}()

	const players, guesses = 50, 20
	// simWithin bounds the simulation's end after the last fault: a player
	// waits up to its Wait (two minutes) for a score.
	const simWithin = 5 * time.Minute
	simDone := make(chan struct{})
	var rep sim.Report
	var simErr error
	go func() {
		defer close(simDone)
		rep, simErr = sim.Run(ctx, &sim.Config{
			URL: url, OperatorToken: "op", Players: players, Guesses: guesses,
			Strategy: "random", Wait: 2 * time.Minute,
		})
	}()

	began := time.Now()
	for i, f := range faults {
		at := int64((i + 1) * players * guesses / (len(faults) + 2))
		for scored.Load() < at {
			select {
			case err := <-served:
				t.Fatalf("serve exited before %s: %v", f.name, err)
			case <-simDone:
				t.Fatalf("the simulation ended before %s (%d scored): %v %v", f.name, scored.Load(), simErr, rep)
			case <-time.After(20 * time.Millisecond):
			}
		}
		t0 := time.Now()
		f.do(t, srv, proxy)
		t.Logf("%s at %d scored, %.1fs into the run (fault lasted %.1fs)", f.name, at, t0.Sub(began).Seconds(), time.Since(t0).Seconds())
	}
	select {
	case <-simDone:
	case err := <-served:
		t.Fatalf("serve exited during the simulation: %v", err)
	case <-time.After(simWithin):
		t.Fatalf("the simulation did not end within %s of the last fault (%d scored)", simWithin, scored.Load())
	}
	require.NoError(t, simErr)
	t.Logf("simulation: %v", rep)
	require.Equal(t, int64(players*guesses), rep.Accepted, "every player placed all its guesses")
	require.Zero(t, rep.Errors)
	if rep.Cracks == 0 { // a crack voids the guesses queued behind it; random guesses crack rarely
		require.Equal(t, rep.Accepted, rep.Scored, "every accepted guess is scored")
	}

	// Every charged guess ends scored or refunded, once. A guess whose
	// submit failed ambiguously is still pending; the sweep queues it again
	// after the engine's PendingAfter (a minute).
	var audit ledgerAudit
	require.Eventually(t, func() bool {
		audit = auditGuesses(t, watch)
		return audit.unresolved == 0
	}, 3*time.Minute, time.Second, "charged guesses neither scored nor refunded")
	t.Logf("audit: %d guesses charged, %d scored, %d refunded, %d players", audit.charged, audit.scored, audit.refunded, len(audit.players))
	require.GreaterOrEqual(t, audit.charged, int(rep.Accepted))
	require.GreaterOrEqual(t, audit.scored, int(rep.Scored))
	require.Empty(t, audit.problems)
	for player, sum := range audit.players {
		w, err := watch.Wallet(ctx, player)
		require.NoError(t, err)
		require.Equal(t, sum, w.Keys, "wallet of %s against its ledger", player)
	}

	select {
	case err := <-served:
		t.Fatalf("serve exited: %v", err)
	default:
	}
	cancel()
	require.NoError(t, echomqtest.Recv(t, served, 30*time.Second, "the server to stop"))
	out := logs.String()
	t.Logf("serve logged %d warnings, %d errors, %d recoveries", strings.Count(out, "level=WARN"), strings.Count(out, "level=ERROR"), strings.Count(out, "recovered"))
	for line, n := range logKinds(out) {
		t.Logf("  %4d × %s", n, line)
	}
}

// logKinds counts the warning and error lines of a text log by level and
// message.
func logKinds(out string) map[string]int {
	kinds := map[string]int{}
	for line := range strings.SplitSeq(out, "\n") {
		var lvl string
		switch {
		case strings.Contains(line, "level=WARN"):
			lvl = "WARN"
		case strings.Contains(line, "level=ERROR"):
			lvl = "ERROR"
		default:
			continue
		}
		msg := line
		if _, after, ok := strings.Cut(line, "msg="); ok {
			msg = after
			if strings.HasPrefix(msg, "\"") {
				if j := strings.Index(msg[1:], "\""); j >= 0 {
					msg = msg[1 : j+1]
				}
			} else if j := strings.IndexByte(msg, ' '); j >= 0 {
				msg = msg[:j]
			}
		}
		if lvl == "ERROR" {
			// An error line says why: keep its cause, cut short.
			if _, after, ok := strings.Cut(line, " err="); ok {
				cause := after
				msg += " (" + cause[:min(len(cause), 160)] + ")"
			}
		}
		kinds[lvl+" "+msg]++
	}
	return kinds
}

// connect returns an engine over queue on its own client.
func connect(t *testing.T, url, queue string) *codemojex.Engine {
	t.Helper()
	ctx := context.Background()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: url, Logger: quiet, Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	e, err := codemojex.New(c, &codemojex.Config{Queue: queue, Logger: quiet})
	require.NoError(t, err)
	return e
}

// ledgerAudit is what the log says of every guess.
type ledgerAudit struct {
	charged, scored, refunded, unresolved int
	across                                int                      // charged in another shard than the game's
	players                               map[string]int64         // keys per player: the sum of the ledger's deltas
	wallets                               map[int]map[string]int64 // per shard, keys per player
	problems                              []string
}

// auditShards is [auditGuesses] over every shard of a sharded game: a
// guess is the shard that recorded it and its id; its charge and refunds
// are the ledger rows of its player's home shard (a row of a guess of
// another shard names that shard), its score the game's shard's
// guess-scored. wallets holds each shard's players' sums of keys.
func auditShards(t *testing.T, sh *codemojex.Shards) ledgerAudit {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a := ledgerAudit{players: map[string]int64{}, wallets: map[int]map[string]int64{}}
	charges, refunds, scores := map[string]int{}, map[string]int{}, map[string]int{}
	across := map[string]bool{}
	for k, e := range sh.Engines() {
		a.wallets[k] = map[string]int64{}
		for ev, err := range e.Stream(codemojex.StreamLedger).Scan(ctx, echomq.All, nil) {
			require.NoError(t, err)
			row := codemojex.ParseLedgerRow(ev.Fields)
			if row.Currency == codemojex.Keys {
				a.players[row.Player] += row.Delta
				a.wallets[k][row.Player] += row.Delta
			}
			at := strconv.Itoa(k)
			if s := ev.Fields.Value("shard"); s != "" {
				at = s
			}
			key := at + "." + row.Ref
			switch row.Reason {
			case codemojex.ReasonGuess:
				charges[key]++
				across[key] = at != strconv.Itoa(k)
			case codemojex.ReasonRefund:
				refunds[key]++
			}
		}
		for ev, err := range e.Stream(codemojex.StreamGuessScored).Scan(ctx, echomq.All, nil) {
			require.NoError(t, err)
			scores[strconv.Itoa(k)+"."+ev.Fields.Value("guess")]++
		}
	}
	for g, n := range charges {
		a.charged++
		if across[g] {
			a.across++
		}
		s, r := scores[g], refunds[g]
		a.scored += min(s, 1)
		a.refunded += min(r, 1)
		switch {
		case n > 1 || s > 1 || r > 1 || s+r > 1:
			a.problems = append(a.problems, fmt.Sprintf("guess %s: charged %d, scored %d, refunded %d", g, n, s, r))
		case s+r == 0:
			a.unresolved++
		}
	}
	for g := range scores {
		if charges[g] == 0 {
			a.problems = append(a.problems, "guess "+g+" scored without a charge")
		}
	}
	for g := range refunds {
		if charges[g] == 0 {
			a.problems = append(a.problems, "guess "+g+" refunded without a charge")
		}
	}
	return a
}

// auditGuesses reads the ledger and the scores: a guess charged twice,
// scored twice, refunded twice, both scored and refunded, or scored or
// refunded without a charge is a problem; a charged guess neither scored
// nor refunded is unresolved.
func auditGuesses(t *testing.T, e *codemojex.Engine) ledgerAudit {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := ledgerAudit{players: map[string]int64{}}
	charges, refunds, scores := map[string]int{}, map[string]int{}, map[string]int{}
	for ev, err := range e.Stream(codemojex.StreamLedger).Scan(ctx, echomq.All, nil) {
		require.NoError(t, err)
		row := codemojex.ParseLedgerRow(ev.Fields)
		if row.Currency == codemojex.Keys {
			a.players[row.Player] += row.Delta
		}
		switch row.Reason {
		case codemojex.ReasonGuess:
			charges[row.Ref]++
		case codemojex.ReasonRefund:
			refunds[row.Ref]++
		}
	}
	for ev, err := range e.Stream(codemojex.StreamGuessScored).Scan(ctx, echomq.All, nil) {
		require.NoError(t, err)
		scores[ev.Fields.Value("guess")]++
	}
	for g, n := range charges {
		a.charged++
		s, r := scores[g], refunds[g]
		a.scored += min(s, 1)
		a.refunded += min(r, 1)
		switch {
		case n > 1 || s > 1 || r > 1 || s+r > 1:
			a.problems = append(a.problems, fmt.Sprintf("guess %s: charged %d, scored %d, refunded %d", g, n, s, r))
		case s+r == 0:
			a.unresolved++
		}
	}
	for g := range scores {
		if charges[g] == 0 {
			a.problems = append(a.problems, "guess "+g+" scored without a charge")
		}
	}
	for g := range refunds {
		if charges[g] == 0 {
			a.problems = append(a.problems, "guess "+g+" refunded without a charge")
		}
	}
	return a
}
