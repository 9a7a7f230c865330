package codemojex

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/lanes"
)

// Receipt is the answer to an accepted guess: it is charged and queued for
// scoring on its player's lane.
type Receipt struct {
	Guess    string   `json:"guess"`
	Job      string   `json:"job"`
	Game     string   `json:"game"`
	Currency Currency `json:"currency"`
	Charged  int64    `json:"charged"`
	// Balance is the player's wallet after the charge.
	Balance Wallet `json:"balance"`
}

// Submit checks a guess and queues it for scoring: the game must exist
// and be open and not expired, the player a member, the codes 6 distinct
// codes of the game's keyboard, and the balance must cover the fee. The
// game takes the guess by the rule "a guess counts only while its game is
// open", decided over the game's events: guess-accepted is appended on the
// condition that the game has no game-closed (see [Engine.accept]). Then,
// in one transaction keyed by the guess, the fee is charged, the ledger
// row booked and the guess recorded; then the guess is enqueued as a JOB
// on the player's lane. If that enqueue fails the charge is refunded in a
// second transaction. Concurrent submits share transactions (each guess
// is checked and charged on its own, in arrival order).
//
// It returns a [*NotFoundError] (unknown game or player), [ErrClosed]
// (also when the game's close came before the guess's acceptance),
// [ErrExpired], [ErrNotMember], the rules' *[rules.CodesError] (matching
// [rules.ErrBadGuess], with a message fit to show), an
// [*InsufficientError] (also after the acceptance, when a concurrent
// charge of the player spent the balance: then guess-refused is in the
// log), and [ErrUnavailable] when the guess could not be queued
// (refunded), or its charge came after the sweep refused it. In every one
// of those cases nothing is charged.
func (e *Engine) Submit(ctx context.Context, player, game string, codes []string) (Receipt, error) {
	if err := checkID(game, BrandGame); err != nil {
		return Receipt{}, err
	}
	if err := checkID(player, BrandPlayer); err != nil {
		return Receipt{}, err
	}
	if err := ctx.Err(); err != nil {
		return Receipt{}, err
	}
	guess, err := e.mint(ctx, BrandGuess)
	if err != nil {
		return Receipt{}, err
	}
	job, err := e.client.MintID(ctx, e.queue, BrandJob)
	if err != nil {
		return Receipt{}, err
	}
	req := submitReq{player: player, game: game, codes: codes, guess: guess, job: job}
	// Once accepted, a guess is charged whatever happens to its caller.
	res, err := e.submits.Do(context.WithoutCancel(ctx), req)
	if err == nil {
		err = res.err
	}
	if err != nil {
		return Receipt{}, err
	}
	// The charge is committed: enqueue (or refund) even if the caller gives
	// up now.
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := e.enqueue(qctx, player, req.guess, req.job); errors.Is(err, errCrashed) {
		return res.rc, nil // a test's crash between charge and enqueue
	} else if err != nil {
		if rerr := e.refund(qctx, req.guess); rerr != nil {
			// The guess stays queued: the sweep queues the job again.
			e.log.Error("codemojex: guess charged but neither queued nor refunded", "guess", req.guess, "enqueue", err, "refund", rerr)
			return Receipt{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return Receipt{}, fmt.Errorf("%w (refunded): %w", ErrUnavailable, err)
	}
	return res.rc, nil
}

// precheck checks the guess q against the records read for it (unwatched):
// the game open and not expired, the player a member, the codes, and the
// balance w covering the fee; it returns the balance after the fee, for
// the next guess of the player in the batch. A guess bound to be refused
// is refused here, before anything is in the log.
func (e *Engine) precheck(g *gameRecord, m *member, w *Wallet, q submitReq) (Wallet, error) {
	if err := e.checkGuess(g, m, q); err != nil {
		return Wallet{}, err
	}
	if w == nil {
		return Wallet{}, notFound("player", q.player)
	}
	return credit(*w, g.currency(), -g.Fee)
}

// checkGuess checks the guess q against its game g and member m: the game
// open and not expired, the player a member, the codes.
func (e *Engine) checkGuess(g *gameRecord, m *member, q submitReq) error {
	switch {
	case g == nil:
		return notFound("game", q.game)
	case g.Status != StatusOpen:
		return fmt.Errorf("%w: game %s is %s", ErrClosed, q.game, g.Status)
	case e.nowMS() >= g.EndsMS:
		return fmt.Errorf("%w: game %s ran out of time", ErrExpired, q.game)
	case m == nil:
		return fmt.Errorf("%w: join room %s first", ErrNotMember, g.Room)
	}
	_, err := checkCodes(*g, q.codes)
	return err
}

// accept decides that the game g takes the guess q, by the rule "a guess
// counts only while its game is open": guess-accepted (tags game, player,
// room) is appended on the condition that no game-closed of the game
// exists. The close appends game-closed with the record that stops the
// scores, so a guess racing the close is either accepted before it (and
// then charged, and scored, or void and refunded when the close wins its
// score) or refused with [ErrClosed], nothing charged. The condition is
// "none ever" (after position 0): a game closes once, so no read is
// needed to decide. Concurrent acceptances share the store's script calls.
func (e *Engine) accept(ctx context.Context, g *gameRecord, q submitReq) error {
	ev := dcb.Append{
		Stream: StreamGuessAccepted, Tags: dcb.Tags(TagGame, g.ID, TagPlayer, q.player, TagRoom, g.Room),
		Fields: echomq.F("game", g.ID, "room", g.Room, "player", q.player, "guess", q.guess, "job", q.job.String(),
			"currency", string(g.currency()), "fee", itoa(g.Fee), "accepted_ms", itoa(e.nowMS())),
	}
	_, err := e.store.Append(ctx, []dcb.Append{ev}, &dcb.Condition{Query: closeQuery(g.ID), After: 0})
	if errors.Is(err, echomq.ErrConflict) {
		return fmt.Errorf("%w: game %s closed", ErrClosed, q.game)
	}
	return err
}

// checkCodes checks a guess's codes against the keyboard of game g.
func checkCodes(g gameRecord, codes []string) (rules.Guess, error) {
	kb, err := rules.ParseKeyboard(g.Keyboard)
	if err != nil {
		return rules.Guess{}, err
	}
	return rules.NewGuess(kb, codes)
}

type submitReq struct {
	player, game string
	codes        []string
	guess        string
	job          echomq.ID
}

type submitRes struct {
	rc  Receipt
	err error
}

// submitBatch checks, accepts and charges a batch of guesses: the records
// of the whole batch are read once, unwatched, and each guess checked
// against them (the balance as the earlier guesses of the player left it);
// the game takes each that passes by [Engine.accept], concurrently; then
// one transaction charges the accepted ones, each on its own against the
// records as the earlier ones left them. An accepted guess the charge
// refuses (its balance spent since the check) writes its refusal: its
// record, status refused, and its guess-refused, so every guess-accepted
// ends. The charge is keyed by the guess: a guess recorded before is
// answered from its record (a refused one with its refusal), never
// accepted or charged twice; the sweep's refusal of a lost guess writes
// the same record, so a late charge and it never both commit. The charge
// does not read the game's status: the acceptance decided.
func (e *Engine) submitBatch(ctx context.Context, reqs []submitReq) []submitRes {
	res := make([]submitRes, len(reqs))
	games, members, wallets, guesses := make([]string, len(reqs)), make([]string, len(reqs)), make([]string, len(reqs)), make([]string, len(reqs))
	for i, q := range reqs {
		games[i], members[i], wallets[i], guesses[i] = q.game, memberKey(q.game, q.player), q.player, q.guess
	}
	// Read unwatched, once: what the charge takes from a game (room,
	// keyboard, fee) never changes, a member record exists for good once
	// its player joined, and the closes and scores that change them would
	// otherwise make the charge run again. The wallets and guesses are
	// read again, watched, by the charge.
	gameRecs, err := peek[gameRecord](ctx, e, tableGames, games)
	var joined map[string]*member
	var purses map[string]*Wallet
	var recorded map[string]*guessRecord
	if err == nil {
		joined, err = peek[member](ctx, e, tableMembers, members)
	}
	if err == nil {
		purses, err = peek[Wallet](ctx, e, tableWallets, wallets)
	}
	if err == nil {
		recorded, err = peek[guessRecord](ctx, e, tableGuesses, guesses)
	}
	if err != nil {
		for i := range res {
			res[i] = submitRes{err: err}
		}
		return res
	}
	var wg sync.WaitGroup
	first := map[string]int{} // guess → its first index in the batch
	for i, q := range reqs {
		if _, ok := first[q.guess]; ok {
			continue // a guess twice in the batch: its first time decides (below)
		}
		first[q.guess] = i
		if recorded[q.guess] != nil {
			continue // charged before: the charge answers from its record
		}
		after, err := e.precheck(gameRecs[q.game], joined[memberKey(q.game, q.player)], purses[q.player], q)
		if err != nil {
			res[i].err = err
			continue
		}
		purses[q.player] = &after
		wg.Go(func() { res[i].err = e.accept(ctx, gameRecs[q.game], q) })
	}
	wg.Wait()
	for i, q := range reqs {
		if j := first[q.guess]; j != i {
			res[i].err = res[j].err
		}
	}
	var live []int // the accepted, and the recorded
	for i := range reqs {
		if res[i].err == nil {
			live = append(live, i)
		}
	}
	if len(live) == 0 {
		return res
	}
	liveWallets, liveGuesses := make([]string, len(live)), make([]string, len(live))
	for k, i := range live {
		liveWallets[k], liveGuesses[k] = reqs[i].player, reqs[i].guess
	}
	if h := e.hooks.beforeCharge; h != nil {
		if err := h(liveGuesses); err != nil { // a test's crash after the acceptance
			for _, i := range live {
				res[i] = submitRes{err: err}
			}
			return res
		}
	}
	err = e.update(ctx, func(ctx context.Context, t *txn) error {
		for _, i := range live {
			res[i] = submitRes{}
		}
		r := newReads(t)
		maps.Copy(r.games, gameRecs)
		maps.Copy(r.members, joined)
		// The batch's wallets and guesses, a round trip per table.
		done := map[string]*guessRecord{}
		if err := errors.Join(prefetch(ctx, t, r.wallets, tableWallets, liveWallets), prefetch(ctx, t, done, tableGuesses, liveGuesses)); err != nil {
			return err
		}
		if h := e.hooks.inCharge; h != nil {
			h(liveGuesses)
		}
		var accepted, refused []guessRecord
		var balances []int64
		for _, i := range live {
			q := reqs[i]
			if rec := done[q.guess]; rec != nil {
				w, err := r.wallet(ctx, q.player)
				if err != nil {
					return err
				}
				var bal Wallet
				if w != nil {
					bal = *w
				}
				if rec.Status == GuessRefused {
					res[i].err = refusedErr(rec, bal)
					continue
				}
				res[i].rc = Receipt{Guess: rec.ID, Job: rec.Job, Game: rec.Game, Currency: rec.Currency, Charged: rec.Fee, Balance: bal}
				continue
			}
			rec, w, err := e.charge(ctx, r, q)
			if err != nil {
				if !isRefusal(err) {
					return err
				}
				// Accepted, so its refusal goes in the log with its
				// record: the guess ends here, never charged.
				res[i].err = err
				ref := e.refusal(q, gameRecs[q.game], refusalReason(err))
				done[q.guess] = &ref
				refused = append(refused, ref)
				continue
			}
			done[q.guess] = &rec // the same guess again in the batch: answered, not charged
			accepted = append(accepted, rec)
			balances = append(balances, w.Of(rec.Currency))
			res[i].rc = Receipt{Guess: rec.ID, Job: rec.Job, Game: rec.Game, Currency: rec.Currency, Charged: rec.Fee, Balance: w}
		}
		if err := r.flush(); err != nil {
			return err
		}
		for _, rec := range slices.Concat(accepted, refused) {
			// Status queued is its pending mark: no record of its own.
			if err := t.put(tableGuesses, rec.ID, rec); err != nil {
				return err
			}
		}
		for _, rec := range refused {
			if err := t.appendRefused(ctx, rec); err != nil {
				return err
			}
		}
		for i, rec := range accepted {
			if err := t.ledger(ctx, rec.Player, rec.Currency, -rec.Fee, balances[i], ReasonGuess, rec.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for _, i := range live {
			res[i] = submitRes{err: err}
		}
	}
	return res
}

// charge debits the cached wallet of r for the accepted guess q and
// returns the guess record to write and the wallet after. The member and
// the codes were checked at the acceptance and cannot have changed; the
// balance can (a concurrent charge of the player): then the guess is
// refused with an [*InsufficientError], nothing charged (the caller writes
// the refusal).
func (e *Engine) charge(ctx context.Context, r *reads, q submitReq) (guessRecord, Wallet, error) {
	g, err := r.game(ctx, q.game)
	if err != nil {
		return guessRecord{}, Wallet{}, err
	}
	if g == nil {
		return guessRecord{}, Wallet{}, notFound("game", q.game)
	}
	if m, err := r.member(ctx, q.game, q.player); err != nil {
		return guessRecord{}, Wallet{}, err
	} else if m == nil {
		return guessRecord{}, Wallet{}, fmt.Errorf("%w: join room %s first", ErrNotMember, g.Room)
	}
	guess, err := checkCodes(*g, q.codes)
	if err != nil {
		return guessRecord{}, Wallet{}, err
	}
	w, err := r.wallet(ctx, q.player)
	if err != nil {
		return guessRecord{}, Wallet{}, err
	}
	if w == nil {
		return guessRecord{}, Wallet{}, notFound("player", q.player)
	}
	cur := g.currency()
	after, err := credit(*w, cur, -g.Fee)
	if err != nil {
		return guessRecord{}, Wallet{}, err
	}
	*w = after
	r.changed(tableWallets, q.player, w)
	rec := guessRecord{
		ID: q.guess, Game: q.game, Room: g.Room, Player: q.player, Job: q.job.String(), Codes: codeStrings(guess[:]),
		Currency: cur, Fee: g.Fee, Status: GuessQueued, AtMS: e.nowMS(),
	}
	return rec, after, nil
}

// refusal returns the record of the accepted guess q (of game g, nil when
// unknown) refused for reason: status refused, nothing charged.
func (e *Engine) refusal(q submitReq, g *gameRecord, reason string) guessRecord {
	rec := guessRecord{
		ID: q.guess, Game: q.game, Player: q.player, Job: q.job.String(), Codes: q.codes,
		Status: GuessRefused, Reason: reason, AtMS: e.nowMS(),
	}
	if g != nil {
		rec.Room, rec.Currency, rec.Fee = g.Room, g.currency(), g.Fee
	}
	return rec
}

// refusalReason names the refusal err of a charge.
func refusalReason(err error) string {
	if errors.Is(err, ErrInsufficient) {
		return RefusedInsufficient
	}
	return RefusedInvalid
}

// refusedErr is the answer to a charge of a guess refused before (rec),
// bal the player's balance: an [*InsufficientError] for a balance spent,
// else [ErrUnavailable] (the guess may be sent again, as a new one).
func refusedErr(rec *guessRecord, bal Wallet) error {
	if rec.Reason == RefusedInsufficient {
		return &InsufficientError{Currency: rec.Currency, Need: rec.Fee, Have: bal.Of(rec.Currency)}
	}
	return fmt.Errorf("%w: guess %s was refused (%s), nothing charged", ErrUnavailable, rec.ID, rec.Reason)
}

// appendRefused buffers the guess-refused of the refused guess rec.
func (t *txn) appendRefused(ctx context.Context, rec guessRecord) error {
	_, err := t.append(ctx, StreamGuessRefused,
		"game", rec.Game, "room", rec.Room, "player", rec.Player, "guess", rec.ID, "job", rec.Job,
		"reason", rec.Reason, "refused_ms", itoa(rec.AtMS))
	return err
}

// isRefusal reports an error that refuses one request of a batch (the
// others go on), as opposed to an engine error that fails the batch.
func isRefusal(err error) bool {
	for _, s := range []error{ErrNotFound, ErrClosed, ErrExpired, ErrNotMember, ErrInsufficient, rules.ErrBadGuess, rules.ErrBadKeyboard, rules.ErrBadSecret} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// errCrashed is what a test's beforeQueue (beforeCharge) hook returns to
// stand for a process that died between the charge and the enqueue
// (between the acceptance and the charge).
var errCrashed = errors.New("codemojex: crashed before the enqueue")

func (e *Engine) enqueue(ctx context.Context, player, guess string, job echomq.ID) error {
	if h := e.hooks.beforeQueue; h != nil {
		if err := h(guess); err != nil {
			return err
		}
	}
	_, err := e.jobs.Enqueue(ctx, player, []byte(guess), &lanes.EnqueueOpts{ID: job})
	if errors.Is(err, lanes.ErrDuplicate) {
		return nil // queued before: the job is live, or done
	}
	return err
}

// refund gives a queued guess's fee back and marks it refunded, once: a
// guess no longer queued is left alone. A guess paid by a hold in its home
// shard gives its fee back there, by the hold, after the commit.
func (e *Engine) refund(ctx context.Context, guess string) error {
	var held *guessRecord // a guess paid by a hold in its home shard
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		held = nil
		rec, ok, err := getJSON[guessRecord](ctx, t, tableGuesses, guess)
		if err != nil || !ok || rec.Status != GuessQueued {
			return err
		}
		r := newReads(t)
		w, err := refundIn(ctx, r, &rec, GuessRefunded, e.nowMS())
		if err != nil {
			return err
		}
		if err := errors.Join(r.flush(), t.put(tableGuesses, rec.ID, rec)); err != nil {
			return err
		}
		if rec.Hold {
			held = &rec
			return nil
		}
		return t.ledger(ctx, rec.Player, rec.Currency, rec.Fee, w.Of(rec.Currency), ReasonRefund, rec.ID)
	})
	if err == nil && held != nil {
		e.releaseHome(ctx, *held)
	}
	return err
}

// refundIn credits the fee of the queued guess rec back to the cached
// wallet and marks rec with status (so it is no longer queued); the caller
// writes rec and books the ledger row.
func refundIn(ctx context.Context, r *reads, rec *guessRecord, status string, now int64) (Wallet, error) {
	if rec.Hold {
		// Paid in its home shard: refunded there, by its hold.
		rec.Status, rec.ScoredMS = status, now
		return Wallet{}, nil
	}
	w, err := r.wallet(ctx, rec.Player)
	if err != nil {
		return Wallet{}, err
	}
	if w == nil {
		return Wallet{}, notFound("player", rec.Player)
	}
	*w = w.add(rec.Currency, rec.Fee)
	r.changed(tableWallets, rec.Player, w)
	rec.Status, rec.ScoredMS = status, now
	return *w, nil
}

func codeStrings(cs []rules.Code) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}
