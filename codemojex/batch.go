package codemojex

import (
	"context"
	"sync"
	"time"
)

// batcher group-commits concurrent calls of one transition: a caller runs
// its request at once while fewer than flights batches are in flight;
// callers that arrive while all are in flight queue up, and when a batch
// ends the queue goes out as the next batch (up to max requests), run by
// the first caller in it. A lone caller never waits; under load one
// transaction carries many requests, so the hot stream it appends to (and
// its lock) is taken once per batch instead of once per request. No
// goroutine is involved: the leader's role passes from caller to caller.
type batcher[Req, Res any] struct {
	max     int // requests per batch
	flights int // batches in flight at once
	run     func(ctx context.Context, reqs []Req) []Res

	mu       sync.Mutex
	inflight int
	pending  []*batchWait[Req, Res]
}

type batchWait[Req, Res any] struct {
	req  Req
	res  Res
	lead chan bool // true: run the next batch; false: res is set
}

// batchTimeout bounds one batch: once a request is taken it is carried out
// whatever happens to its caller's context, so its outcome is known.
const batchTimeout = 30 * time.Second

// do runs req in a batch and returns its result.
func (b *batcher[Req, Res]) do(ctx context.Context, req Req) Res {
	w := &batchWait[Req, Res]{req: req, lead: make(chan bool, 1)}
	b.mu.Lock()
	if b.inflight >= b.flights {
		b.pending = append(b.pending, w)
		b.mu.Unlock()
		if !<-w.lead {
			return w.res
		}
		// The batch that ended took w off the queue and handed its flight on.
	} else {
		b.inflight++
		b.mu.Unlock()
	}
	// Leading: w first, then whoever queued after it.
	b.mu.Lock()
	n := min(len(b.pending), b.max-1)
	batch := make([]*batchWait[Req, Res], 0, n+1)
	batch = append(batch, w)
	batch = append(batch, b.pending[:n]...)
	b.pending = b.pending[n:]
	b.mu.Unlock()

	reqs := make([]Req, len(batch))
	for i, bw := range batch {
		reqs[i] = bw.req
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), batchTimeout)
	res := b.run(rctx, reqs)
	cancel()
	for i, bw := range batch {
		bw.res = res[i]
		if bw != w {
			bw.lead <- false
		}
	}
	b.mu.Lock()
	if len(b.pending) > 0 {
		next := b.pending[0]
		b.pending = b.pending[1:]
		b.mu.Unlock()
		next.lead <- true
	} else {
		b.inflight--
		b.mu.Unlock()
	}
	return w.res
}
