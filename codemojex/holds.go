package codemojex

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

// The statuses of a hold (docs/codemojex.md, "Wallets across shards").
const (
	holdHeld     = "held"     // the fee is debited; the guess not yet known recorded or given up
	holdDone     = "done"     // the guess was recorded in its room's shard and scored
	holdRefunded = "refunded" // the fee went back: the guess was refused, voided or never recorded
)

// holdKey is the key of the hold of guess (minted in shard k) in its
// player's home shard: guess ids are unique per shard, so the room's shard
// is part of the key.
func holdKey(k int, guess string) string { return strconv.Itoa(k) + "." + guess }

// debitHold debits, in this (the player's home) shard, the fee of a guess
// played in another shard, in one transaction with its ledger row (reason
// guess, ref the guess, shard the room's shard) and its hold h, status
// held. A hold that exists already is not charged again. It returns the
// wallet after, an [*InsufficientError] when the balance does not cover
// the fee and a [*NotFoundError] for an unknown player; nothing is written
// then. Concurrent debits share transactions, as submits do.
func (e *Engine) debitHold(ctx context.Context, h holdRecord) (Wallet, error) {
	res, err := e.holds.Do(ctx, h)
	if err == nil {
		err = res.err
	}
	return res.w, err
}

type holdRes struct {
	w   Wallet
	err error
}

// debitHolds is a batch of [Engine.debitHold]: one transaction, each hold
// debited on its own in order, against the wallets as the earlier ones
// left them; a refused one writes nothing.
func (e *Engine) debitHolds(ctx context.Context, hs []holdRecord) []holdRes {
	res := make([]holdRes, len(hs))
	keys, players := make([]string, len(hs)), make([]string, len(hs))
	for i, h := range hs {
		keys[i], players[i] = holdKey(h.Shard, h.Guess), h.Player
	}
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		clear(res)
		r := newReads(t)
		held := map[string]*holdRecord{}
		if err := errors.Join(prefetch(ctx, t, r.wallets, tableWallets, players), prefetch(ctx, t, held, tableHolds, keys)); err != nil {
			return err
		}
		type booked struct {
			h   holdRecord
			bal int64
		}
		var book []booked
		for i, h := range hs {
			w, err := r.wallet(ctx, h.Player)
			if err != nil {
				return err
			}
			switch {
			case w == nil:
				res[i].err = notFound("player", h.Player)
				continue
			case held[keys[i]] != nil:
				res[i].w = *w // charged before
				continue
			}
			after, err := credit(*w, h.Currency, -h.Fee)
			if err != nil {
				res[i].err = err
				continue
			}
			*w = after
			r.changed(tableWallets, h.Player, w)
			held[keys[i]] = &hs[i]
			res[i].w = after
			book = append(book, booked{h, after.Of(h.Currency)})
		}
		if err := r.flush(); err != nil {
			return err
		}
		for _, b := range book {
			if err := t.put(tableHolds, holdKey(b.h.Shard, b.h.Guess), b.h); err != nil {
				return err
			}
		}
		for _, b := range book {
			if err := t.ledger(ctx, b.h.Player, b.h.Currency, -b.h.Fee, b.bal, ReasonGuess, b.h.Guess, "shard", strconv.Itoa(b.h.Shard)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for i := range res {
			res[i] = holdRes{err: err}
		}
	}
	return res
}

// releaseHold settles the hold key of this (the home) shard, once: a held
// hold becomes refunded (its fee credited back, a ledger row of reason
// refund) or done. A hold not held is left alone, so a release runs any
// number of times. It reports whether it changed the hold.
func (e *Engine) releaseHold(ctx context.Context, key string, refund bool) (bool, error) {
	changed := false
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		changed = false
		h, ok, err := getJSON[holdRecord](ctx, t, tableHolds, key)
		if err != nil || !ok || h.Status != holdHeld {
			return err
		}
		h.SettledMS, changed = e.nowMS(), true
		if !refund {
			h.Status = holdDone
			return t.put(tableHolds, key, h)
		}
		w, ok, err := getJSON[Wallet](ctx, t, tableWallets, h.Player)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("player", h.Player)
		}
		w = w.add(h.Currency, h.Fee)
		h.Status = holdRefunded
		if err := errors.Join(t.put(tableWallets, h.Player, w), t.put(tableHolds, key, h)); err != nil {
			return err
		}
		return t.ledger(ctx, h.Player, h.Currency, h.Fee, w.Of(h.Currency), ReasonRefund, h.Guess, "shard", strconv.Itoa(h.Shard))
	})
	return changed, err
}

// takeHeld is the room's side of a guess q of game g paid by a hold in
// the player's home shard: the guess is accepted (guess-accepted on the
// condition that the game has no game-closed, as [Engine.accept]), then
// recorded queued, marked paid by the hold, in one transaction keyed by
// the guess that commits only while the guess has no record and no void
// mark. A void mark (the home shard gave the guess up) makes it write the
// guess's refusal instead (its record, status refused, and guess-refused),
// so the acceptance ends. It returns the record; [ErrClosed] when the game
// closed first (nothing recorded), and [ErrUnavailable] with a refused
// record.
func (e *Engine) takeHeld(ctx context.Context, q submitReq, g *gameRecord, home int) (guessRecord, error) {
	guess, err := checkCodes(*g, q.codes)
	if err != nil {
		return guessRecord{}, err
	}
	if err := e.accept(ctx, g, q); err != nil {
		return guessRecord{}, err
	}
	res, err := e.takes.Do(ctx, takeReq{q: q, g: g, home: home, codes: codeStrings(guess[:])})
	if err == nil {
		err = res.err
	}
	if err != nil {
		return guessRecord{}, err
	}
	if res.rec.Status == GuessRefused {
		return res.rec, refusedErr(&res.rec, Wallet{})
	}
	return res.rec, nil
}

type takeReq struct {
	q     submitReq
	g     *gameRecord
	home  int
	codes []string
}

type takeRes struct {
	rec guessRecord
	err error
}

// takeBatch records a batch of accepted guesses paid by holds (see
// [Engine.takeHeld]) in one transaction: each guess is recorded queued
// unless it has a record (answered from it) or a void mark (refused).
func (e *Engine) takeBatch(ctx context.Context, reqs []takeReq) []takeRes {
	res := make([]takeRes, len(reqs))
	ids := make([]string, len(reqs))
	for i, r := range reqs {
		ids[i] = r.q.guess
	}
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		clear(res)
		recs, voids := map[string]*guessRecord{}, map[string]*int64{}
		if err := errors.Join(prefetch(ctx, t, recs, tableGuesses, ids), prefetch(ctx, t, voids, tableVoids, ids)); err != nil {
			return err
		}
		var refused []guessRecord
		var put []*guessRecord
		for i, r := range reqs {
			q := r.q
			if rec := recs[q.guess]; rec != nil {
				res[i].rec = *rec
				continue
			}
			var rec guessRecord
			if voids[q.guess] != nil {
				rec = e.refusal(q, r.g, RefusedLost)
				refused = append(refused, rec)
			} else {
				rec = guessRecord{
					ID: q.guess, Game: q.game, Room: r.g.Room, Player: q.player, Job: q.job.String(), Codes: r.codes,
					Currency: r.g.currency(), Fee: r.g.Fee, Status: GuessQueued, AtMS: e.nowMS(), Hold: true, Home: r.home,
				}
			}
			recs[q.guess] = &rec
			put = append(put, &rec)
			res[i].rec = rec
		}
		for _, rec := range put {
			if err := t.put(tableGuesses, rec.ID, rec); err != nil {
				return err
			}
		}
		for _, rec := range refused {
			if err := t.appendRefused(ctx, rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for i := range res {
			res[i] = takeRes{err: err}
		}
	}
	return res
}

// voidUnlessRecorded is the home shard's sweep in the room's shard: it
// returns the record of guess, or, when it has none, writes its void mark
// (one transaction that commits only while the guess has no record), after
// which the guess is never recorded. ok is false for a guess voided.
func (e *Engine) voidUnlessRecorded(ctx context.Context, guess string) (guessRecord, bool, error) {
	var out guessRecord
	var ok bool
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		var err error
		out, ok, err = getJSON[guessRecord](ctx, t, tableGuesses, guess)
		if err != nil || ok {
			return err
		}
		if h := e.hooks.inVoid; h != nil {
			h(guess)
		}
		_, void, err := t.tx.Get(ctx, tableVoids, guess)
		if err != nil || void {
			return err
		}
		return t.tx.Put(tableVoids, guess, []byte(itoa(e.nowMS())))
	})
	return out, ok, err
}

// releaseHome settles the hold of the guess rec of this shard, paid in its
// player's home shard, after rec left status queued here: refunded for a
// void or refunded guess, done for a scored one. A failure is logged: the
// home shard's sweep settles the hold from rec.
func (e *Engine) releaseHome(ctx context.Context, rec guessRecord) {
	if e.sh == nil || !rec.Hold || rec.Home < 0 || rec.Home >= len(e.sh.engines) {
		return
	}
	if _, err := e.sh.engines[rec.Home].releaseHold(ctx, holdKey(e.idx, rec.ID), rec.Status != GuessScored); err != nil {
		e.log.Warn("codemojex: settle a guess's hold in its home shard (the sweep retries)", "guess", rec.ID, "home", rec.Home, "err", err)
	}
}

// creditPrize credits, in this (the player's home) shard, a prize of the
// game of shard k, once: the prize record (key shard, game, player) is
// written with the credit and its ledger row (reason prize, ref the game),
// and a prize recorded before is not credited again.
func (e *Engine) creditPrize(ctx context.Context, k int, game, player string, amount int64) error {
	key := strconv.Itoa(k) + "." + game + "." + player
	return e.update(ctx, func(ctx context.Context, t *txn) error {
		_, paid, err := getJSON[prizeRecord](ctx, t, tablePrizes, key)
		if err != nil || paid {
			return err
		}
		w, ok, err := getJSON[Wallet](ctx, t, tableWallets, player)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("player", player)
		}
		w = w.add(Diamonds, amount)
		p := prizeRecord{Game: game, Player: player, Shard: k, Amount: amount, AtMS: e.nowMS()}
		if err := errors.Join(t.put(tableWallets, player, w), t.put(tablePrizes, key, p)); err != nil {
			return err
		}
		return t.ledger(ctx, player, Diamonds, amount, w.Diamonds, ReasonPrize, game, "shard", strconv.Itoa(k))
	})
}

// payHome credits the prizes of the settled game g of this shard whose
// winners' wallets live in other shards (g.Remote), each once.
func (e *Engine) payHome(ctx context.Context, g *gameRecord) error {
	if e.sh == nil || len(g.Remote) == 0 || g.Status != StatusSettled {
		return nil
	}
	if h := e.hooks.beforePayHome; h != nil {
		if err := h(); err != nil {
			return err
		}
	}
	var errs []error
	for _, p := range g.Payouts {
		k, ok := g.Remote[p.Player]
		if !ok || k < 0 || k >= len(e.sh.engines) {
			continue
		}
		errs = append(errs, e.sh.engines[k].creditPrize(ctx, e.idx, g.ID, p.Player, p.Amount))
	}
	return errors.Join(errs...)
}

// remoteWinners returns the winners among payouts whose wallets live in
// another shard than e (player → home shard); nil for an engine on its
// own.
func (e *Engine) remoteWinners(ctx context.Context, payouts []Payout) (map[string]int, error) {
	if e.sh == nil || len(payouts) == 0 {
		return nil, nil
	}
	ids := make([]string, len(payouts))
	for i, p := range payouts {
		ids[i] = p.Player
	}
	local, err := peek[Wallet](ctx, e, tableWallets, ids)
	if err != nil {
		return nil, err
	}
	var out map[string]int
	for _, p := range payouts {
		if local[p.Player] != nil {
			continue
		}
		k, err := e.sh.Home(ctx, p.Player)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]int{}
		}
		out[p.Player] = k
	}
	return out, nil
}

// submitAcross plays a guess of a player of home shard hk in a game of
// shard rk ≠ hk, in two steps keyed by the guess id (minted in shard rk):
// (a) in the home shard the fee is debited against a hold, (b) in the
// room's shard the guess is accepted and recorded, paid by the hold (see
// [Engine.takeHeld]); a refusal in (b) refunds the hold. A crash between
// the two is settled by the home shard's sweep ([Shards.settleHolds]).
func (s *Shards) submitAcross(ctx context.Context, hk, rk int, player, game string, codes []string) (Receipt, error) {
	home, room := s.engines[hk], s.engines[rk]
	g, gok, err := readJSON[gameRecord](ctx, room, tableGames, game)
	if err != nil {
		return Receipt{}, err
	}
	m, mok, err := readJSON[member](ctx, room, tableMembers, memberKey(game, player))
	if err != nil {
		return Receipt{}, err
	}
	q := submitReq{player: player, game: game, codes: codes}
	var gp *gameRecord
	var mp *member
	if gok {
		gp = &g
	}
	if mok {
		mp = &m
	}
	if err := room.checkGuess(gp, mp, q); err != nil {
		return Receipt{}, err
	}
	if q.guess, err = room.mint(ctx, BrandGuess); err != nil {
		return Receipt{}, err
	}
	if q.job, err = room.client.MintID(ctx, room.queue, BrandJob); err != nil {
		return Receipt{}, err
	}
	// From here on the guess is played to its end whatever its caller does.
	ctx = context.WithoutCancel(ctx)
	w, err := home.debitHold(ctx, holdRecord{
		Guess: q.guess, Game: game, Room: g.Room, Player: player, Shard: rk,
		Currency: g.currency(), Fee: g.Fee, Status: holdHeld, AtMS: home.nowMS(),
	})
	if err != nil {
		return Receipt{}, err
	}
	rest := func(ctx context.Context) (Receipt, error) { return s.takeAcross(ctx, hk, rk, q, &g, w) }
	if h := s.afterHold; h != nil {
		if err := h(q.guess, rest); err != nil {
			return Receipt{}, err // a test's crash between (a) and (b)
		}
	}
	return rest(ctx)
}

// takeAcross is step (b) of [Shards.submitAcross] and the enqueue.
func (s *Shards) takeAcross(ctx context.Context, hk, rk int, q submitReq, g *gameRecord, w Wallet) (Receipt, error) {
	home, room := s.engines[hk], s.engines[rk]
	rec, err := room.takeHeld(ctx, q, g, hk)
	if err != nil {
		if isRefusal(err) || rec.Status == GuessRefused {
			// Never recorded: the fee goes back, once.
			if _, rerr := home.releaseHold(ctx, holdKey(rk, q.guess), true); rerr != nil {
				home.log.Warn("codemojex: refund a refused guess's hold (the sweep retries)", "guess", q.guess, "err", rerr)
			}
			return Receipt{}, err
		}
		// Undecided (an engine error): the sweep settles the hold.
		return Receipt{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	rc := Receipt{Guess: rec.ID, Job: rec.Job, Game: rec.Game, Currency: rec.Currency, Charged: rec.Fee, Balance: w}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := room.enqueue(qctx, q.player, q.guess, q.job); errors.Is(err, errCrashed) {
		return rc, nil
	} else if err != nil {
		if rerr := room.refund(qctx, q.guess); rerr != nil {
			room.log.Error("codemojex: guess charged but neither queued nor refunded", "guess", q.guess, "enqueue", err, "refund", rerr)
			return Receipt{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return Receipt{}, fmt.Errorf("%w (refunded): %w", ErrUnavailable, err)
	}
	return rc, nil
}

// settleAcross runs, for every shard, [Shards.settleHolds] and
// [Shards.settlePrizes]; it returns how many holds it settled.
func (s *Shards) settleAcross(ctx context.Context) (int, error) {
	if len(s.engines) == 1 {
		return 0, nil
	}
	n := 0
	var errs []error
	for k := range s.engines {
		m, err := s.settleHolds(ctx, k)
		n += m
		errs = append(errs, err, s.settlePrizes(ctx, k))
	}
	return n, errors.Join(errs...)
}

// settleHolds settles the holds of home shard hk held longer than
// PendingAfter: for each, the guess's record in the room's shard is read
// and, when it has none, its void mark written there
// ([Engine.voidUnlessRecorded]); then the hold is settled: scored → done;
// voided, refused, void or refunded → refunded. A guess still queued keeps
// its hold, and its job is queued again under its id (a job still there
// is a duplicate; a dead one's guess is refunded). The holds are found by
// their ledger rows (reason guess with a shard), read from the cursor
// holds on (every hold booked at or before it is settled), 500 at a time:
// the records of a chunk are read with a round trip per shard and its
// settled holds released in one transaction. It returns how many holds it
// settled.
func (s *Shards) settleHolds(ctx context.Context, hk int) (int, error) {
	e := s.engines[hk]
	cutoff := e.nowMS() - e.cfg.PendingAfter.Milliseconds()
	cur, _, err := readJSON[requeueCursor](ctx, e, tableCursors, cursorHolds)
	if err != nil {
		return 0, err
	}
	span := echomq.All
	var after echomq.EntryID
	if cur.After != "" {
		if after, err = echomq.ParseEntryID(cur.After); err != nil {
			return 0, fmt.Errorf("codemojex: holds cursor: %w", err)
		}
		span = echomq.Span(echomq.Exclusive(after), echomq.Unbounded)
	}
	st := holdSweep{s: s, hk: hk, after: after, next: after}
	for ev, err := range e.Stream(StreamLedger).Scan(ctx, span, nil) {
		if err != nil {
			return st.n, err
		}
		ks := ev.Fields.Value("shard")
		if ev.Fields.Value("reason") != ReasonGuess || ks == "" {
			st.rows = append(st.rows, holdRow{entry: ev.Entry})
			continue
		}
		if at, _ := strconv.ParseInt(ev.Fields.Value("at_ms"), 10, 64); at > cutoff {
			break
		}
		rk, err := strconv.Atoi(ks)
		if err != nil || rk < 0 || rk >= len(s.engines) {
			st.rows = append(st.rows, holdRow{entry: ev.Entry})
			continue
		}
		st.rows = append(st.rows, holdRow{entry: ev.Entry, rk: rk, guess: ev.Fields.Value("ref")})
		if st.holds++; st.holds == 500 {
			if err := st.flush(ctx); err != nil {
				return st.n, err
			}
		}
	}
	return st.n, st.flush(ctx)
}

// holdSweep is one [Shards.settleHolds]'s progress through the ledger.
type holdSweep struct {
	s           *Shards
	hk          int
	rows        []holdRow
	holds       int
	after, next echomq.EntryID
	held        bool // a hold still held was met: the cursor stays
	n           int
}

type holdRow struct {
	entry echomq.EntryID
	rk    int
	guess string // "" for a row of no hold
}

// flush settles the holds of the rows read and moves the cursor.
func (st *holdSweep) flush(ctx context.Context) error {
	home := st.s.engines[st.hk]
	keys := make([]string, 0, st.holds)
	byShard := map[int][]string{}
	for _, r := range st.rows {
		if r.guess != "" {
			keys = append(keys, holdKey(r.rk, r.guess))
			byShard[r.rk] = append(byShard[r.rk], r.guess)
		}
	}
	hs, err := peek[holdRecord](ctx, home, tableHolds, keys)
	if err != nil {
		return err
	}
	recs := map[string]*guessRecord{} // "<rk>.<guess>" → its record in shard rk
	for rk, ids := range byShard {
		got, err := peek[guessRecord](ctx, st.s.engines[rk], tableGuesses, ids)
		if err != nil {
			return err
		}
		for id, rec := range got {
			recs[holdKey(rk, id)] = rec
		}
	}
	// A guess that left status queued stays so: its hold is settled from
	// what it became, all in one transaction.
	release := map[string]bool{} // key → refund
	open := map[string]bool{}    // key → still held after this pass
	for _, r := range st.rows {
		if r.guess == "" {
			continue
		}
		key := holdKey(r.rk, r.guess)
		if h := hs[key]; h == nil || h.Status != holdHeld {
			continue
		}
		rec := recs[key]
		switch {
		case rec == nil || rec.Status == GuessQueued:
			// Never recorded, or in play: one by one.
			done, err := st.s.settleHold(ctx, st.hk, r.rk, r.guess)
			if err != nil {
				return err
			}
			if done {
				st.n++
			} else {
				open[key] = true
			}
		default:
			release[key] = rec.Status != GuessScored
		}
	}
	if len(release) > 0 {
		n, err := home.releaseHolds(ctx, release)
		if err != nil {
			return err
		}
		st.n += n
	}
	for _, r := range st.rows {
		if r.guess != "" && open[holdKey(r.rk, r.guess)] {
			st.held = true
		}
		if !st.held {
			st.next = r.entry
		}
	}
	st.rows, st.holds = st.rows[:0], 0
	if st.next.Compare(st.after) > 0 {
		if err := home.moveCursor(ctx, cursorHolds, st.next); err != nil {
			return err
		}
		st.after = st.next
	}
	return nil
}

// releaseHolds is [Engine.releaseHold] of many holds (key → refund) in one
// transaction; it returns how many it changed.
func (e *Engine) releaseHolds(ctx context.Context, release map[string]bool) (int, error) {
	keys := make([]string, 0, len(release))
	for k := range release {
		keys = append(keys, k)
	}
	n := 0
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		n = 0
		r := newReads(t)
		hs := map[string]*holdRecord{}
		if err := prefetch(ctx, t, hs, tableHolds, keys); err != nil {
			return err
		}
		var players []string
		for _, k := range keys {
			if h := hs[k]; h != nil && h.Status == holdHeld && release[k] {
				players = append(players, h.Player)
			}
		}
		if err := prefetch(ctx, t, r.wallets, tableWallets, players); err != nil {
			return err
		}
		type refund struct {
			h   *holdRecord
			bal int64
		}
		var refunds []refund
		var changed []string
		for _, k := range keys {
			h := hs[k]
			if h == nil || h.Status != holdHeld {
				continue
			}
			h.SettledMS, h.Status = e.nowMS(), holdDone
			if release[k] {
				w, err := r.wallet(ctx, h.Player)
				if err != nil {
					return err
				}
				if w == nil {
					return notFound("player", h.Player)
				}
				*w = w.add(h.Currency, h.Fee)
				r.changed(tableWallets, h.Player, w)
				h.Status = holdRefunded
				refunds = append(refunds, refund{h, w.Of(h.Currency)})
			}
			changed = append(changed, k)
		}
		if err := r.flush(); err != nil {
			return err
		}
		for _, k := range changed {
			if err := t.put(tableHolds, k, hs[k]); err != nil {
				return err
			}
		}
		for _, rf := range refunds {
			if err := t.ledger(ctx, rf.h.Player, rf.h.Currency, rf.h.Fee, rf.bal, ReasonRefund, rf.h.Guess, "shard", strconv.Itoa(rf.h.Shard)); err != nil {
				return err
			}
		}
		n = len(changed)
		return nil
	})
	return n, err
}

// settleHold settles the hold of guess (of room shard rk) in home shard
// hk, if still held (see [Shards.settleHolds]); it reports whether it
// settled it.
func (s *Shards) settleHold(ctx context.Context, hk, rk int, guess string) (bool, error) {
	home, room := s.engines[hk], s.engines[rk]
	key := holdKey(rk, guess)
	h, ok, err := readJSON[holdRecord](ctx, home, tableHolds, key)
	if err != nil || !ok || h.Status != holdHeld {
		return false, err
	}
	rec, recorded, err := room.voidUnlessRecorded(ctx, guess)
	if err != nil {
		return false, err
	}
	if recorded && rec.Status == GuessQueued {
		// In play: its job is queued again (a process may have died before
		// the enqueue); the hold stays until the guess is scored or voided.
		job, err := echomq.ParseID(rec.Job)
		if err != nil {
			return false, nil
		}
		_, err = room.jobs.Enqueue(ctx, rec.Player, []byte(rec.ID), &lanes.EnqueueOpts{ID: job})
		var dup *lanes.DuplicateError
		switch {
		case errors.As(err, &dup) && dup.State == lanes.StateDead:
			// Its scoring job died: the guess is refunded (the hold with it).
			return false, room.refund(ctx, rec.ID)
		case err != nil && !errors.Is(err, lanes.ErrDuplicate):
			return false, err
		}
		return false, nil
	}
	return home.releaseHold(ctx, key, !recorded || rec.Status != GuessScored)
}

// settlePrizes credits home the prizes of the games settled in shard rk
// more than PendingAfter ago whose winners live in other shards, once each
// (the credit is keyed by game and player): a process that died between a
// settlement and its credits leaves them to this. It reads game-settled
// from the cursor prizes on.
func (s *Shards) settlePrizes(ctx context.Context, rk int) error {
	e := s.engines[rk]
	cutoff := e.nowMS() - e.cfg.PendingAfter.Milliseconds()
	cur, _, err := readJSON[requeueCursor](ctx, e, tableCursors, cursorPrizes)
	if err != nil {
		return err
	}
	span := echomq.All
	var after echomq.EntryID
	if cur.After != "" {
		if after, err = echomq.ParseEntryID(cur.After); err != nil {
			return fmt.Errorf("codemojex: prizes cursor: %w", err)
		}
		span = echomq.Span(echomq.Exclusive(after), echomq.Unbounded)
	}
	next := after
	for ev, err := range e.Stream(StreamGameSettled).Scan(ctx, span, nil) {
		if err != nil {
			return err
		}
		if at, _ := strconv.ParseInt(ev.Fields.Value("settled_ms"), 10, 64); at > cutoff {
			break
		}
		if ev.Fields.Value("paid") != "0" {
			g, ok, err := readJSON[gameRecord](ctx, e, tableGames, ev.Fields.Value("game"))
			if err != nil {
				return err
			}
			if ok {
				if err := e.payHome(ctx, &g); err != nil {
					return err
				}
			}
		}
		next = ev.Entry
	}
	if next.Compare(after) > 0 {
		return e.moveCursor(ctx, cursorPrizes, next)
	}
	return nil
}
