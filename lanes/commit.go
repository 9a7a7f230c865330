package lanes

import (
	"context"
	"runtime"
	"sync"
)

// committer group-commits concurrent calls of one script: a caller runs
// its request at once while fewer than flights calls are in flight;
// callers that arrive when all are in flight queue up, and when one
// returns the queue goes out as one script call, run by the first of them.
// A lone caller never waits, and under load one call carries many
// requests, so the engine pays the script's fixed cost once per batch
// instead of once per request. No goroutine is involved: the leader's role
// passes from caller to caller.
type committer[Req, Res any] struct {
	max     int // requests per call
	flights int // calls in flight at once
	run     func(ctx context.Context, reqs []Req) ([]Res, error)

	mu       sync.Mutex
	inflight int
	pending  []*commitWait[Req, Res]
}

type commitWait[Req, Res any] struct {
	req  Req
	res  Res
	err  error
	lead chan bool // true: run the next batch; false: res and err are set
}

// do submits req and returns its result. Once submitted the request is
// carried out whatever happens to ctx, so its outcome is never unknown; ctx
// only bounds the call as a whole (its values reach the engine call).
func (c *committer[Req, Res]) do(ctx context.Context, req Req) (Res, error) {
	if err := ctx.Err(); err != nil {
		var zero Res
		return zero, err
	}
	w := &commitWait[Req, Res]{req: req, lead: make(chan bool, 1)}
	c.mu.Lock()
	if c.inflight >= c.flights {
		c.pending = append(c.pending, w)
		c.mu.Unlock()
		if !<-w.lead {
			return w.res, w.err
		}
		// The flight that ended took w off the queue and handed its slot on.
	} else {
		c.inflight++
		c.mu.Unlock()
	}
	// Let callers that are about to submit (often the ones the last flight
	// just answered) join this call: a yield costs a lone caller nothing
	// and makes batches under load whole.
	runtime.Gosched()
	// Leading: w goes first, then whoever queued after it (the queue only
	// grows while every flight is taken, so nobody queued before w).
	c.mu.Lock()
	n := min(len(c.pending), c.max-1)
	batch := make([]*commitWait[Req, Res], 0, n+1)
	batch = append(batch, w)
	batch = append(batch, c.pending[:n]...)
	c.pending = c.pending[n:]
	c.mu.Unlock()

	reqs := make([]Req, len(batch))
	for i, b := range batch {
		reqs[i] = b.req
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	res, err := c.run(rctx, reqs)
	cancel()
	for i, b := range batch {
		if err != nil {
			b.err = err
		} else {
			b.res = res[i]
		}
		if b != w {
			b.lead <- false
		}
	}

	c.mu.Lock()
	if len(c.pending) > 0 {
		next := c.pending[0]
		c.pending = c.pending[1:]
		c.mu.Unlock()
		next.lead <- true
	} else {
		c.inflight--
		c.mu.Unlock()
	}
	return w.res, w.err
}
