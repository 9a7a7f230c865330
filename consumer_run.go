package echomq

import (
	"context"
	"sync"
	"time"

	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/wire"
)

// readSlack bounds a blocking read beyond its BLOCK time, so a dead
// connection cannot park the fetch loop forever.
const readSlack = 5 * time.Second

// Run creates the group when missing (at Config.Start), then consumes until
// ctx ends:
//
//  1. it drains its own pending list (entries delivered to this name
//     before a crash or restart) in entry order, with a cursor that moves
//     past every entry it returned, so an entry that keeps failing cannot
//     hold the drain;
//  2. then, each Beat, it reclaims entries idle for MinIdle from any
//     consumer of the group (XAUTOCLAIM, resuming its scan where the last
//     one stopped), and blocks up to Beat for new entries (XREADGROUP …
//     BLOCK … >) on a connection of its own.
//
// When ctx ends it stops fetching, hands the fetched entries no handler has
// started back to the group (they stay pending, marked idle so that a peer
// takes them at once), lets running handlers finish for up to Grace, then
// cancels their contexts and waits for them, flushes the acknowledgements
// and returns nil.
//
// Run rides out the engine's outages: every failure matching
// [ErrUnavailable] (a restart, a hung engine, a partition, an engine
// loading or failing over), of the first XGROUP CREATE as of any later
// read, reclaim or acknowledgement, is retried with a backoff from 100ms
// to 2s, and logged once per outage on the consumer's Logger ("echomq:
// consumer: engine unavailable; retrying"), as is its end ("echomq:
// consumer: engine back"). A group that vanishes while Run runs (destroyed
// by hand, or lost with the engine's data) is logged and created again at
// Start. Run ends only when ctx ends (nil) or on a permanent error, and
// logs which. Errors: [ErrRunning] when the consumer is already
// running (by Run or [Consumer.Start]); [ErrWrongType] when the stream key
// holds something else; [ErrClosed] when the client is closed;
// [*ServerError].
func (c *Consumer) Run(ctx context.Context) error { return c.e.Run(ctx) }

// Start runs [Consumer.Run] in a goroutine the consumer owns and returns at
// once: it consumes until ctx ends or [Consumer.Stop] is called. It returns
// [ErrRunning] when the consumer is already running.
func (c *Consumer) Start(ctx context.Context) error { return c.e.Start(ctx) }

// Stop stops the consumer gracefully, as the end of Run's context does, and
// waits until it has stopped or ctx ends (then it returns ctx's error). It
// returns the error the run ended with, if any. Stopping a consumer that
// is not running does nothing.
func (c *Consumer) Stop(ctx context.Context) error { return c.e.Stop(ctx) }

// Stopped returns a channel closed when the consumer's run has ended
// (already closed before the first run).
func (c *Consumer) Stopped() <-chan struct{} { return c.e.Stopped() }

// consume is the consumer's source of entries for its engine: it creates
// the group, then runs the fetch loop and shuts the run down.
func (c *Consumer) consume(ctx context.Context) error {
	if err := c.createGroup(ctx); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil // stopped while starting: a stop, not a failure
	}
	r := c.newRun(ctx)
	err := r.fetch()
	r.shutdown()
	return err
}

// run is one Run: the fetch loop in Run's goroutine, Concurrency handler
// workers, and one acknowledger.
type run struct {
	c       *Consumer
	e       *consumerEngine
	stop    context.Context // ends when Run's ctx ends or fetching failed
	halt    context.CancelFunc
	io      context.Context // engine calls: never cut off mid-reply by a stop
	hctx    context.Context // base of handler contexts, ends when Grace is over
	hcancel context.CancelFunc
	queue   *jobQueue
	acks    *ackBuffer
	ackDone chan struct{}
	workers sync.WaitGroup
	unhook  func() bool
	back    outage.Backoff // the fetch loop's retries

	mu       sync.Mutex
	inflight map[string]struct{} // entry ids fetched and not settled
	handback []string            // entry ids to release at stop
}

func (c *Consumer) newRun(ctx context.Context) *run {
	r := &run{
		c:        c,
		e:        c.e,
		io:       context.WithoutCancel(ctx),
		queue:    newJobQueue(c.cfg.Count),
		acks:     newAckBuffer(),
		ackDone:  make(chan struct{}),
		inflight: make(map[string]struct{}),
	}
	r.stop, r.halt = context.WithCancel(ctx)
	r.hctx, r.hcancel = context.WithCancel(r.io)
	r.unhook = context.AfterFunc(r.stop, r.queue.wake)
	go r.ackLoop()
	r.workers.Add(c.cfg.Concurrency)
	for range c.cfg.Concurrency {
		go r.work()
	}
	return r
}

// fetch drains the consumer's own pending list, then reclaims and reads
// until the stop; it returns only errors that retrying cannot cure.
func (r *run) fetch() error {
	defer r.halt()
	cfg := &r.c.cfg
	for cursor := "0"; r.stop.Err() == nil; {
		since := time.Now()
		entries, err := r.c.c.conn.XReadGroup(r.io, r.c.s.key, cfg.Group, cfg.Name, cursor, int64(cfg.Count), -1)
		if err != nil {
			if err = r.retry("drain", err); err != nil {
				return err
			}
			continue
		}
		r.e.watch.OK()
		r.back.Reset()
		if len(entries) == 0 {
			break
		}
		cursor = entries[len(entries)-1].ID
		r.dispatchPending(entries, since)
	}
	var lastClaim time.Time
	for claimCursor := "0-0"; r.stop.Err() == nil; {
		if time.Since(lastClaim) >= cfg.Beat {
			lastClaim = time.Now()
			ac, err := r.e.reclaim(r.io, r.c.from, claimCursor, int64(cfg.Count))
			if err != nil {
				if err = r.retry("reclaim", err); err != nil {
					return err
				}
				continue
			}
			r.back.Reset()
			claimCursor = ac.Next
			r.e.stats.reclaimed.Add(int64(len(ac.Entries)))
			r.dispatchPending(ac.Entries, lastClaim)
		}
		ctx, cancel := context.WithTimeout(r.io, cfg.Beat+readSlack)
		entries, err := r.c.c.conn.XReadGroup(ctx, r.c.s.key, cfg.Group, cfg.Name, ">", int64(cfg.Count), cfg.Beat)
		cancel()
		if err != nil {
			if err = r.retry("read", err); err != nil {
				return err
			}
			continue
		}
		r.e.watch.OK()
		r.back.Reset()
		// The engine delivered these when the blocked read returned; the
		// margin absorbs the reply's trip.
		since := time.Now()
		fresh := make([]fetched, len(entries))
		for i, e := range entries {
			fresh[i] = fetched{e, 1}
		}
		r.dispatch(fresh, since)
	}
	return nil
}

// fetched is an entry and its delivery count.
type fetched struct {
	e        wire.Entry
	attempts int64
}

// dispatchPending hands over entries that were pending before this fetch (a
// drain read or a reclaim): entries whose data is gone are acknowledged and
// counted, the others get their delivery counts in one round trip. An entry
// that meanwhile left this consumer is skipped.
func (r *run) dispatchPending(entries []wire.Entry, since time.Time) {
	live := make([]string, 0, len(entries))
	var gone []string
	for _, e := range entries {
		if e.Fields == nil {
			gone = append(gone, e.ID)
		} else {
			live = append(live, e.ID)
		}
	}
	if len(gone) > 0 {
		r.e.stats.trimmed.Add(int64(len(gone)))
		// Acknowledged at once, not through the ack batch: a reclaim in
		// the meantime would report the same trimmed entries again.
		_, err := r.c.c.conn.XAck(r.io, r.c.s.key, r.c.cfg.Group, gone...)
		if err != nil {
			r.acks.add(gone...)
		}
		r.e.acked(r.io, r.c.from, len(gone), true, 0, err)
	}
	if len(live) == 0 {
		return
	}
	rows, err := r.c.c.conn.XPendingIDs(r.io, r.c.s.key, r.c.cfg.Group, live)
	if err != nil {
		// Left in this consumer's pending list: the next reclaim retries.
		r.e.log.Warn("delivery counts unavailable; entries left for a reclaim", "err", err, "entries", len(live))
		return
	}
	fs := make([]fetched, 0, len(live))
	for _, e := range entries {
		if row, ok := rows[e.ID]; ok && e.Fields != nil && row.Consumer == r.c.cfg.Name {
			fs = append(fs, fetched{e, row.Deliveries})
		}
	}
	r.dispatch(fs, since)
}

// dispatch queues the entries of one fetch for the handlers, or hands them
// back when the consumer is stopping. An entry already queued or running (a
// reclaim of an entry whose handler overran) is not queued twice.
func (r *run) dispatch(fs []fetched, since time.Time) {
	cfg := &r.c.cfg
	b := &batch{deadline: since.Add(cfg.MinIdle - r.c.margin())}
	jobs := make([]*job, 0, len(fs))
	r.mu.Lock()
	for _, f := range fs {
		if _, dup := r.inflight[f.e.ID]; dup {
			continue
		}
		ev, err := decodeEvent(f.e)
		if err != nil {
			r.e.log.Error("undecodable entry left pending", "entry", f.e.ID, "err", err)
			continue
		}
		r.inflight[f.e.ID] = struct{}{}
		d := Delivery{Event: ev, Attempts: f.attempts, Queue: cfg.Queue, Stream: cfg.Stream, Group: cfg.Group, Consumer: cfg.Name}
		jobs = append(jobs, &job{d: d, id: f.e.ID, b: b})
	}
	r.mu.Unlock()
	if len(jobs) == 0 {
		return
	}
	b.left.Store(int32(len(jobs)))
	b.ctx, b.cancel = context.WithDeadline(r.hctx, b.deadline)
	if !r.queue.push(r.stop, jobs) {
		for _, j := range jobs {
			r.handBack(j)
		}
	}
}

// handBack marks a fetched entry to be released at stop.
func (r *run) handBack(j *job) {
	r.mu.Lock()
	delete(r.inflight, j.id)
	r.handback = append(r.handback, j.id)
	r.mu.Unlock()
	j.done()
}

// settled forgets a fetched entry once its outcome is decided.
func (r *run) settled(j *job) {
	r.mu.Lock()
	delete(r.inflight, j.id)
	r.mu.Unlock()
	j.done()
}
