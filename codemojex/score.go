package codemojex

import (
	"context"
	"errors"
	"strconv"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/lanes"
)

// Worker returns a lanes worker that scores the queued guesses: run one
// or more per deployment, in any processes. Delivery is at least once; the
// scoring is idempotent on the guess (one per job), so a redelivered job
// counts once.
func (e *Engine) Worker(cfg *lanes.WorkerConfig) (*lanes.Worker, error) {
	return lanes.NewWorker(e.jobs, lanes.HandlerFunc(e.handle), cfg)
}

// handle is the job handler: the payload is the guess id.
func (e *Engine) handle(ctx context.Context, job *lanes.Job) error {
	guess := string(job.Payload)
	if err := checkID(guess, BrandGuess); err != nil {
		return lanes.Cancel(err)
	}
	res, err := e.Score(ctx, guess)
	if errors.Is(err, ErrNotFound) {
		return lanes.Cancel(err)
	}
	if err != nil {
		return err
	}
	if h := e.hooks.afterScore; h != nil {
		h(guess)
	}
	if res.Cracked {
		if _, err := e.settle(ctx, res.Game); err != nil {
			// The game is closing; the sweep finishes the settlement.
			e.log.Warn("codemojex: settle after crack", "game", res.Game, "err", err)
		}
	}
	return nil
}

// Scored is the outcome of [Engine.Score].
type Scored struct {
	Guess string `json:"guess"`
	Game  string `json:"game"`
	// Status is the guess's status after: scored, or void when its game
	// closed before it was scored (its fee was refunded), or the status it
	// already had (a redelivered job changes nothing).
	Status  string `json:"status"`
	Points  int    `json:"points"`
	Attempt int    `json:"attempt"`
	// Cracked reports that this guess scored 600 in a classic game and
	// closed it.
	Cracked bool `json:"cracked"`
	// Again reports that the guess was no longer queued: nothing changed.
	Again bool `json:"again"`
}

// Score scores a queued guess in one transaction: the guess record (which
// leaves status queued, its pending mark), the player's attempts and best
// in the game and the guess-scored event commit together, so scoring the
// same guess again changes nothing. A 600 in a classic game also moves the game to
// closing and appends its game-closed in that transaction (its settlement
// follows). A guess whose game
// is no longer open is void and refunded instead. Concurrent scores share
// transactions. It returns a [*NotFoundError] for an unknown guess.
func (e *Engine) Score(ctx context.Context, guess string) (Scored, error) {
	if err := checkID(guess, BrandGuess); err != nil {
		return Scored{}, err
	}
	// Once taken, a score is carried out whatever happens to its caller
	// (the outcome must be known), as the batch is.
	res, err := e.scores.Do(context.WithoutCancel(ctx), guess)
	if err != nil {
		return Scored{}, err
	}
	return res.s, res.err
}

type scoreRes struct {
	s   Scored
	err error
}

// scoreBatch scores a batch of guesses in one transaction, in order: a
// crack early in the batch closes its game for the later ones.
func (e *Engine) scoreBatch(ctx context.Context, guesses []string) []scoreRes {
	res := make([]scoreRes, len(guesses))
	var held []guessRecord // voided guesses paid by holds in their home shards
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		clear(res)
		held = held[:0]
		r := newReads(t)
		var recs []*guessRecord
		var events [][]string
		type refund struct {
			rec     *guessRecord
			balance int64
		}
		var refunds []refund
		var closes []gameRecord // the games a crack closed
		// The batch's records, a round trip per table: the guesses, then
		// the games and members of those still queued. A guess twice in
		// the batch is one record, so its second time finds it scored.
		recsOf := map[string]*guessRecord{}
		if err := prefetch(ctx, t, recsOf, tableGuesses, guesses); err != nil {
			return err
		}
		var games, members []string
		for _, id := range guesses {
			if rec := recsOf[id]; rec != nil && rec.Status == GuessQueued {
				games, members = append(games, rec.Game), append(members, memberKey(rec.Game, rec.Player))
			}
		}
		if err := errors.Join(prefetch(ctx, t, r.games, tableGames, games), prefetch(ctx, t, r.members, tableMembers, members)); err != nil {
			return err
		}
		for i, id := range guesses {
			rec := recsOf[id]
			if rec == nil {
				res[i].err = notFound("guess", id)
				continue
			}
			res[i].s = Scored{Guess: id, Game: rec.Game, Status: rec.Status, Points: rec.Points, Attempt: rec.Attempt, Again: true}
			if rec.Status != GuessQueued {
				continue
			}
			g, err := r.game(ctx, rec.Game)
			if err != nil {
				return err
			}
			m, err := r.member(ctx, rec.Game, rec.Player)
			if err != nil {
				return err
			}
			if g == nil || m == nil || g.Status != StatusOpen {
				w, err := refundIn(ctx, r, rec, GuessVoid, e.nowMS())
				if err != nil {
					return err
				}
				res[i].s = Scored{Guess: id, Game: rec.Game, Status: GuessVoid}
				recs, refunds = append(recs, rec), append(refunds, refund{rec, w.Of(rec.Currency)})
				continue
			}
			fields, err := e.scoreIn(r, rec, g, m, &res[i].s)
			if err != nil {
				return err
			}
			recs, events = append(recs, rec), append(events, fields)
			if res[i].s.Cracked {
				closes = append(closes, *g)
			}
		}
		if err := r.flush(); err != nil {
			return err
		}
		for _, rec := range recs {
			if err := t.put(tableGuesses, rec.ID, rec); err != nil {
				return err
			}
		}
		for _, f := range events {
			if _, err := t.append(ctx, StreamGuessScored, f...); err != nil {
				return err
			}
		}
		for _, g := range closes {
			if err := t.appendClosed(ctx, g); err != nil {
				return err
			}
		}
		for _, rf := range refunds {
			if rf.rec.Hold {
				held = append(held, *rf.rec)
				continue
			}
			if err := t.ledger(ctx, rf.rec.Player, rf.rec.Currency, rf.rec.Fee, rf.balance, ReasonRefund, rf.rec.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for i := range res {
			res[i] = scoreRes{err: err}
		}
		return res
	}
	for _, rec := range held {
		e.releaseHome(ctx, rec)
	}
	return res
}

// scoreIn scores the queued guess rec of the open game g for member m (all
// cached in r, and changed there) and returns the guess-scored fields.
func (e *Engine) scoreIn(r *reads, rec *guessRecord, g *gameRecord, m *member, out *Scored) ([]string, error) {
	kb, err := rules.ParseKeyboard(g.Keyboard)
	if err != nil {
		return nil, err
	}
	secret, err := rules.ParseSecret(kb, g.Secret)
	if err != nil {
		return nil, err
	}
	guess, err := rules.NewGuess(kb, rec.Codes)
	if err != nil {
		return nil, err // it passed the same check at submit: never
	}
	id, err := echomq.ParseID(rec.ID)
	if err != nil {
		return nil, err
	}
	res := rules.Score(secret, guess)
	now := e.nowMS()
	m.Attempts++
	if res.Total > m.Best {
		m.Best, m.BestAt = res.Total, int64(id.Snowflake())
	}
	r.changed(tableMembers, memberKey(g.ID, m.Player), m)
	rec.Status, rec.Points, rec.Attempt, rec.ScoredMS = GuessScored, res.Total, m.Attempts, now
	cracked := g.Mode.EndsOn(res)
	if cracked {
		g.Status, g.Reason, g.ClosedMS = StatusClosing, ReasonCrack, now
		r.changed(tableGames, g.ID, g)
	}
	if h := e.hooks.beforeScore; h != nil {
		h(rec.ID)
	}
	fields := []string{
		"game", g.ID, "room", g.Room, "player", rec.Player, "guess", rec.ID, "job", rec.Job,
		"attempt", strconv.Itoa(m.Attempts),
	}
	if g.Mode.Feedback() {
		fields = append(fields, "points", strconv.Itoa(res.Total), "pct", strconv.Itoa(res.Percent), "best", strconv.Itoa(m.Best))
	} else {
		fields = append(fields, "sealed", "1")
	}
	*out = Scored{Guess: rec.ID, Game: g.ID, Status: GuessScored, Points: res.Total, Attempt: m.Attempts, Cracked: cracked}
	return fields, nil
}
