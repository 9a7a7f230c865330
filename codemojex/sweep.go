package codemojex

import (
	"context"
	"errors"
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

// Requeue queues again the job of every guess charged more than
// Config.PendingAfter ago and still not scored: a process that died
// between the charge and the enqueue leaves such a guess. The job keeps
// its id, so a job still queued or running is refused as a duplicate and
// nothing changes; a guess whose job is dead (it failed every attempt) is
// refunded instead. It returns how many jobs it queued.
func (e *Engine) Requeue(ctx context.Context) (int, error) {
	cutoff := e.nowMS() - e.cfg.PendingAfter.Milliseconds()
	var reqs []lanes.Request
	for rec, err := range e.client.Table(e.queue, tablePending).All(ctx) {
		if err != nil {
			return 0, err
		}
		var p pending
		if err := unmarshal(rec.Value, &p); err != nil {
			return 0, err
		}
		job, err := echomq.ParseID(p.Job)
		if err != nil || p.AtMS > cutoff {
			continue
		}
		reqs = append(reqs, lanes.Request{Lane: p.Player, Payload: []byte(rec.Key), Opts: &lanes.EnqueueOpts{ID: job}})
	}
	n := 0
	for len(reqs) > 0 {
		batch := reqs[:min(len(reqs), 500)]
		reqs = reqs[len(batch):]
		res, err := e.jobs.EnqueueBatch(ctx, batch)
		if err != nil {
			return n, err
		}
		for i, r := range res {
			var dup *lanes.DuplicateError
			switch {
			case r.Err == nil:
				n++
			case errors.As(r.Err, &dup) && dup.State == lanes.StateDead:
				// Its scoring job died (it failed every attempt): the guess
				// will never be scored, so its fee goes back. The dead job
				// stays for an operator to inspect; retried, it finds the
				// guess refunded and changes nothing.
				guess := string(batch[i].Payload)
				if _, err := e.refund(ctx, guess, GuessRefunded); err != nil {
					return n, err
				}
				e.log.Warn("codemojex: refunded a guess whose scoring job died", "guess", guess, "job", r.ID)
			}
		}
	}
	return n, nil
}

// RunSweep sweeps every interval (and queues lost guesses again every 30
// intervals) until ctx ends; failures are logged and retried on the next
// tick. It returns nil when ctx ends.
func (e *Engine) RunSweep(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		return badArg("sweep interval", "must be positive")
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		res, err := e.Sweep(ctx)
		if err != nil && ctx.Err() == nil {
			e.log.Warn("codemojex: sweep", "err", err)
		}
		if res.Closed > 0 || res.Settled > 0 {
			e.log.Info("codemojex: sweep", "closed", res.Closed, "settled", res.Settled)
		}
		if n%60 == 0 {
			if k, err := e.PruneSessions(ctx); err != nil && ctx.Err() == nil {
				e.log.Warn("codemojex: prune sessions", "err", err)
			} else if k > 0 {
				e.log.Info("codemojex: pruned expired sessions", "sessions", k)
			}
		}
		if n%30 == 0 {
			if k, err := e.Requeue(ctx); err != nil && ctx.Err() == nil {
				e.log.Warn("codemojex: requeue", "err", err)
			} else if k > 0 {
				e.log.Info("codemojex: requeued lost guesses", "jobs", k)
			}
		}
	}
}
