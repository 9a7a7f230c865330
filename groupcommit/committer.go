package groupcommit

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"
)

// Config configures [New].
type Config[Req, Res any] struct {
	// Run carries out a batch of requests in one call and returns one
	// result per request, in order, or an error for the whole batch.
	// Required.
	Run func(ctx context.Context, reqs []Req) ([]Res, error)
	// Max is the most requests one call carries. Defaults to 64.
	Max int
	// Flights is how many calls may be in flight at once. Defaults to 4.
	Flights int
	// Timeout bounds one call, which is not cancelled with its callers'
	// contexts. Defaults to 30s.
	Timeout time.Duration
}

// ErrShortResult means Run returned fewer results than requests; each request
// of that batch gets it.
var ErrShortResult = errors.New("groupcommit: run returned fewer results than requests")

// Committer group-commits concurrent calls of one operation. It is safe
// for concurrent use.
type Committer[Req, Res any] struct {
	cfg Config[Req, Res]

	mu       sync.Mutex
	inflight int
	pending  []*wait[Req, Res]
}

type wait[Req, Res any] struct {
	req  Req
	res  Res
	err  error
	lead chan bool // true: run the next batch; false: res and err are set
}

// New returns a Committer; it panics when cfg.Run is nil (a programming
// error, found at start).
func New[Req, Res any](cfg Config[Req, Res]) *Committer[Req, Res] {
	if cfg.Run == nil {
		panic("groupcommit: Config.Run is nil")
	}
	if cfg.Max <= 0 {
		cfg.Max = 64
	}
	if cfg.Flights <= 0 {
		cfg.Flights = 4
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &Committer[Req, Res]{cfg: cfg}
}

// Do submits req and returns its result. A context that has already ended
// submits nothing and returns its error; once submitted the request is
// carried out whatever happens to ctx.
func (c *Committer[Req, Res]) Do(ctx context.Context, req Req) (Res, error) {
	if err := ctx.Err(); err != nil {
		var zero Res
		return zero, err
	}
	w := &wait[Req, Res]{req: req, lead: make(chan bool, 1)}
	c.mu.Lock()
	if c.inflight >= c.cfg.Flights {
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
	n := min(len(c.pending), c.cfg.Max-1)
	batch := make([]*wait[Req, Res], 0, n+1)
	batch = append(batch, w)
	batch = append(batch, c.pending[:n]...)
	c.pending = c.pending[n:]
	c.mu.Unlock()

	reqs := make([]Req, len(batch))
	for i, b := range batch {
		reqs[i] = b.req
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.Timeout)
	res, err := c.cfg.Run(rctx, reqs)
	cancel()
	if err == nil && len(res) < len(batch) {
		err = ErrShortResult
	}
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
