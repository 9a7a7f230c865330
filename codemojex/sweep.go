package codemojex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

// SweepResult is what one [Engine.Sweep] did.
type SweepResult struct {
	// Closed counts the games this sweep closed because their time ran out.
	Closed int `json:"closed"`
	// Settled counts the closing games whose settlement this sweep
	// finished (a closer that stopped half-way).
	Settled int `json:"settled"`
}

// Sweep closes and settles every open game whose time ran out and finishes
// the settlement of every closing game. Any number of sweeps may run at
// once, with cracks and operators: each game still closes once. A second
// sweep over the same games changes nothing.
func (e *Engine) Sweep(ctx context.Context) (SweepResult, error) {
	var res SweepResult
	rooms, err := e.Rooms(ctx)
	if err != nil {
		return res, err
	}
	var errs []error
	for _, r := range rooms {
		if r.Game == "" {
			continue
		}
		g, ok, err := readJSON[gameRecord](ctx, e, tableGames, r.Game)
		if err != nil || !ok {
			errs = append(errs, err)
			continue
		}
		switch {
		case g.Status == StatusOpen && e.nowMS() >= g.EndsMS:
			_, err := e.Close(ctx, g.ID, ReasonTimer)
			if err == nil {
				res.Closed++
			} else if !errors.Is(err, ErrAlreadyClosed) {
				errs = append(errs, err)
			}
		case g.Status == StatusClosing:
			if _, err := e.settle(ctx, g.ID); err != nil {
				errs = append(errs, err)
			} else {
				res.Settled++
			}
		}
	}
	return res, errors.Join(errs...)
}

// Requeue settles the guesses a process left half-way, once they are
// older than Config.PendingAfter. It refuses every guess accepted and
// never charged (a process that died between the acceptance and the
// charge, or a charge that failed): its record, status refused, and its
// guess-refused, committed only while the guess has no record, so a late
// charge and the refusal never both commit. And it queues
// again the job of every guess charged and still queued (not scored, void
// or refunded): a process that died between the charge and the enqueue
// leaves such a guess. The job keeps its id, so a job still queued or
// running is refused as a duplicate and nothing changes; a guess whose job
// is dead (it failed every attempt) is refunded instead. It returns how
// many jobs it queued.
//
// The guesses are found through their ledger rows (reason guess, booked in
// the guess's own transaction), read from the cursor record
// cursors:requeue on: the ledger position before which every guess has
// left status queued. A guess still queued keeps the cursor before it but
// does not stop the read, so the guesses booked after it are requeued all
// the same; the cursor moves past it once it is settled. A row younger
// than PendingAfter ends the read.
func (e *Engine) Requeue(ctx context.Context) (int, error) {
	lost, lerr := e.refuseLost(ctx)
	if lost > 0 {
		e.log.Warn("codemojex: refused accepted guesses that were never charged", "guesses", lost)
	}
	n, err := e.requeueJobs(ctx)
	return n, errors.Join(lerr, err)
}

// refuseLost ends every guess accepted (its guess-accepted) more than
// Config.PendingAfter ago that has no record, so was never charged: one
// transaction per guess writes its record, status refused, and its
// guess-refused, and commits only while the guess still has no record. The
// charge reads the guess's record too, so a late charge and this refusal
// never both commit: the one second runs again and finds the record (a
// charge then refuses with [ErrUnavailable]). It reads guess-accepted from
// the cursor record cursors:accepted on (every guess accepted at or before
// it has its record), a chunk at a time, and moves the cursor after each
// chunk; an event younger than PendingAfter ends the read. It returns how
// many guesses it refused.
func (e *Engine) refuseLost(ctx context.Context) (int, error) {
	cutoff := e.nowMS() - e.cfg.PendingAfter.Milliseconds()
	cur, _, err := readJSON[requeueCursor](ctx, e, tableCursors, cursorAccepted)
	if err != nil {
		return 0, err
	}
	span := echomq.All
	if cur.After != "" {
		after, err := echomq.ParseEntryID(cur.After)
		if err != nil {
			return 0, fmt.Errorf("codemojex: accepted cursor: %w", err)
		}
		span = echomq.Span(echomq.Exclusive(after), echomq.Unbounded)
	}
	var (
		chunk []echomq.Event
		n     int
	)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		ids := make([]string, 0, len(chunk))
		for _, ev := range chunk {
			ids = append(ids, ev.Fields.Value("guess"))
		}
		recs, err := peek[guessRecord](ctx, e, tableGuesses, ids)
		if err != nil {
			return err
		}
		for _, ev := range chunk {
			if recs[ev.Fields.Value("guess")] != nil {
				continue // charged, or refused by its charge
			}
			refused, err := e.refuseLostGuess(ctx, ev.Fields)
			if err != nil {
				return err
			}
			if refused {
				n++
			}
		}
		last := chunk[len(chunk)-1].Entry
		chunk = chunk[:0]
		return e.moveCursor(ctx, cursorAccepted, last)
	}
	for ev, err := range e.Stream(StreamGuessAccepted).Scan(ctx, span, nil) {
		if err != nil {
			return n, err
		}
		if at, _ := strconv.ParseInt(ev.Fields.Value("accepted_ms"), 10, 64); at > cutoff {
			break
		}
		chunk = append(chunk, ev)
		if len(chunk) == cmp.Or(e.hooks.requeueChunk, 500) {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}

// refuseLostGuess refuses the guess of the guess-accepted fields f, lost
// (never charged), unless it has a record by the commit; it reports
// whether it refused it.
func (e *Engine) refuseLostGuess(ctx context.Context, f echomq.Fields) (bool, error) {
	guess := f.Value("guess")
	if checkID(guess, BrandGuess) != nil {
		return false, nil // not a guess of this engine's: nothing to settle
	}
	fee, _ := strconv.ParseInt(f.Value("fee"), 10, 64)
	var refused bool
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		refused = false
		_, ok, err := getJSON[guessRecord](ctx, t, tableGuesses, guess)
		if err != nil || ok {
			return err // recorded: charged, or refused, meanwhile
		}
		if h := e.hooks.inRefuse; h != nil {
			h(guess)
		}
		rec := guessRecord{
			ID: guess, Game: f.Value("game"), Room: f.Value("room"), Player: f.Value("player"), Job: f.Value("job"),
			Codes: []string{}, Currency: Currency(f.Value("currency")), Fee: fee,
			Status: GuessRefused, Reason: RefusedLost, AtMS: e.nowMS(),
		}
		if err := t.put(tableGuesses, guess, rec); err != nil {
			return err
		}
		if err := t.appendRefused(ctx, rec); err != nil {
			return err
		}
		refused = true
		return nil
	})
	return refused, err
}

// requeueJobs queues again the jobs of the guesses charged and still
// queued (see [Engine.Requeue]).
func (e *Engine) requeueJobs(ctx context.Context) (int, error) {
	cutoff := e.nowMS() - e.cfg.PendingAfter.Milliseconds()
	cur, _, err := readJSON[requeueCursor](ctx, e, tableCursors, cursorRequeue)
	if err != nil {
		return 0, err
	}
	rq := requeue{e: e}
	span := echomq.All
	if cur.After != "" {
		if rq.after, err = echomq.ParseEntryID(cur.After); err != nil {
			return 0, fmt.Errorf("codemojex: requeue cursor: %w", err)
		}
		span = echomq.Span(echomq.Exclusive(rq.after), echomq.Unbounded)
	}
	rq.next = rq.after
	// The rows are judged a chunk at a time (500 guesses), so memory stays
	// bounded however far behind the cursor is (a first requeue reads the
	// whole ledger), and the cursor is saved after each chunk.
	for ev, err := range e.Stream(StreamLedger).Scan(ctx, span, nil) {
		if err != nil {
			return rq.n, err
		}
		if ev.Fields.Value("reason") != ReasonGuess || ev.Fields.Value("shard") != "" {
			// (A hold's row: its guess lives in another shard.)
			rq.other(ev.Entry)
			continue
		}
		if at, _ := strconv.ParseInt(ev.Fields.Value("at_ms"), 10, 64); at > cutoff {
			break
		}
		rq.rows = append(rq.rows, requeueRow{entry: ev.Entry, guess: ev.Fields.Value("ref")})
		if rq.guesses++; rq.guesses == cmp.Or(e.hooks.requeueChunk, 500) {
			if err := rq.flush(ctx); err != nil {
				return rq.n, err
			}
		}
	}
	return rq.n, rq.flush(ctx)
}

// requeue is one [Engine.Requeue]'s progress through the ledger.
type requeue struct {
	e *Engine
	// rows are the rows read and not judged yet: a guess's row, or (guess
	// "") the last of a run of rows of other reasons.
	rows    []requeueRow
	guesses int
	// after is the saved cursor, next where it can move: the last row
	// before the first guess still queued.
	after, next echomq.EntryID
	// held: a guess still queued was met, so the cursor stays where it is.
	held bool
	n    int
}

type requeueRow struct {
	entry echomq.EntryID
	guess string
}

// other notes a row of another reason than a guess.
func (rq *requeue) other(entry echomq.EntryID) {
	if k := len(rq.rows); k > 0 && rq.rows[k-1].guess == "" {
		rq.rows[k-1].entry = entry
		return
	}
	rq.rows = append(rq.rows, requeueRow{entry: entry})
}

// flush judges the rows read: it queues again the jobs of the guesses
// still queued (refunding those whose job is dead) and moves the cursor.
func (rq *requeue) flush(ctx context.Context) error {
	e := rq.e
	ids := make([]string, 0, rq.guesses)
	for _, r := range rq.rows {
		if r.guess != "" {
			ids = append(ids, r.guess)
		}
	}
	recs, err := peek[guessRecord](ctx, e, tableGuesses, ids)
	if err != nil {
		return err
	}
	var reqs []lanes.Request
	for _, r := range rq.rows {
		rec := recs[r.guess]
		if rec == nil || rec.Status != GuessQueued {
			if !rq.held {
				rq.next = r.entry
			}
			continue
		}
		rq.held = true
		job, err := echomq.ParseID(rec.Job)
		if err != nil {
			continue
		}
		reqs = append(reqs, lanes.Request{Lane: rec.Player, Payload: []byte(rec.ID), Opts: &lanes.EnqueueOpts{ID: job}})
	}
	rq.rows, rq.guesses = rq.rows[:0], 0
	if len(reqs) > 0 {
		res, err := e.jobs.EnqueueBatch(ctx, reqs)
		if err != nil {
			return err
		}
		for i, r := range res {
			var dup *lanes.DuplicateError
			switch {
			case r.Err == nil:
				rq.n++
			case errors.As(r.Err, &dup) && dup.State == lanes.StateDead:
				// Its scoring job died (it failed every attempt): the guess
				// will never be scored, so its fee goes back. The dead job
				// stays for an operator to inspect; retried, it finds the
				// guess refunded and changes nothing.
				guess := string(reqs[i].Payload)
				if err := e.refund(ctx, guess); err != nil {
					return err
				}
				e.log.Warn("codemojex: refunded a guess whose scoring job died", "guess", guess, "job", r.ID)
			}
		}
	}
	if rq.next.Compare(rq.after) > 0 {
		if err := e.moveCursor(ctx, cursorRequeue, rq.next); err != nil {
			return err
		}
		rq.after = rq.next
	}
	return nil
}

// moveCursor moves the requeue cursor key forward to after, never back
// (sweeps in several processes may race).
func (e *Engine) moveCursor(ctx context.Context, key string, after echomq.EntryID) error {
	return e.update(ctx, func(ctx context.Context, t *txn) error {
		cur, ok, err := getJSON[requeueCursor](ctx, t, tableCursors, key)
		if err != nil {
			return err
		}
		if ok && cur.After != "" {
			if have, err := echomq.ParseEntryID(cur.After); err == nil && have.Compare(after) >= 0 {
				return nil
			}
		}
		return t.put(tableCursors, key, requeueCursor{After: after.String(), AtMS: e.nowMS()})
	})
}

// RunSweep sweeps every interval (and queues lost guesses again every 30
// intervals) until ctx ends; failures are retried on the next tick. Each
// of its chores logs its failure once per outage, and its recovery once,
// rather than every tick. It returns nil when ctx ends.
func (e *Engine) RunSweep(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		return badArg("sweep interval", "must be positive")
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	sweep, prune, requeue := outage{log: e.log, what: "sweep"}, outage{log: e.log, what: "prune sessions"}, outage{log: e.log, what: "requeue"}
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		res, err := e.Sweep(ctx)
		if ctx.Err() != nil {
			return nil
		}
		sweep.note(err)
		if res.Closed > 0 || res.Settled > 0 {
			e.log.Info("codemojex: sweep", "closed", res.Closed, "settled", res.Settled)
		}
		if n%60 == 0 {
			k, err := e.PruneSessions(ctx)
			if ctx.Err() != nil {
				return nil
			}
			if prune.note(err); err == nil && k > 0 {
				e.log.Info("codemojex: pruned expired sessions", "sessions", k)
			}
		}
		if n%30 == 0 {
			k, err := e.Requeue(ctx)
			if ctx.Err() != nil {
				return nil
			}
			if requeue.note(err); err == nil && k > 0 {
				e.log.Info("codemojex: requeued lost guesses", "jobs", k)
			}
		}
	}
}

// outage logs a recurring chore's failures once per outage: the first
// failure as a warning, the first success after it as the recovery.
type outage struct {
	log     *slog.Logger
	what    string
	failing bool
	since   time.Time
	misses  int
}

// note records one run's outcome.
func (o *outage) note(err error) {
	switch {
	case err != nil && !o.failing:
		o.failing, o.since, o.misses = true, time.Now(), 1
		o.log.Warn("codemojex: "+o.what+" failed; retrying on each tick, logged again once it recovers", "err", err)
	case err != nil:
		o.misses++
	case o.failing:
		o.failing = false
		o.log.Info("codemojex: "+o.what+" recovered", "after", time.Since(o.since).Round(time.Millisecond), "failed_runs", o.misses)
	}
}
