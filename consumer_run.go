package echomq

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/wire"
)

// readSlack bounds a blocking read beyond its BLOCK time, so a dead
// connection cannot park the fetch loop forever.
const readSlack = 5 * time.Second

// fetchSource is what differs between the fronts: how a run finds its
// streams and reads them. A [Consumer] reads one stream with a blocking
// read (consumer_source.go); a [SetConsumer] merges the streams of a set in
// entry-id order (stream_set_consumer.go). Both hand what they read to
// [run.dispatch] or [run.dispatchPending]; everything else (the loop,
// reclaims, retries, handlers, acknowledgements, the stop) is the run's.
type fetchSource interface {
	// prepare runs before each read: it creates the groups of streams not
	// read yet (all of them when first). what names the failed call.
	prepare(r *run, first bool) (what string, err error)
	// read fetches once (blocking up to Beat when nothing is there) and
	// dispatches what it fetched.
	read(r *run) (what string, err error)
}

// stream is one stream a run reads.
type stream struct {
	origin
	claimAt  string     // the XAUTOCLAIM cursor
	draining bool       // its own pending list is still being read: not reclaimed yet
	cur      *setCursor // its merge cursor, for a set: entries fetched and not dispatched
}

// run is one Run of either front: the fetch loop in Run's goroutine,
// Concurrency handler workers, and one acknowledger.
type run struct {
	e       *consumerEngine
	src     fetchSource
	streams []*stream       // the fetch loop's alone
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
	claimed time.Time      // the last reclaim
	scratch []fetched      // the fetch loop's, reused by each read

	mu       sync.Mutex
	inflight map[ackID]struct{} // entries fetched and not settled
	handback []ackID            // entries to release at stop
}

// consume is one run of the engine: it starts the workers and the
// acknowledger, runs the fetch loop and shuts the run down.
func (e *consumerEngine) consume(ctx context.Context) error {
	r := &run{
		e: e, src: e.source(),
		io:       context.WithoutCancel(ctx),
		queue:    newJobQueue(e.Count),
		acks:     newAckBuffer(),
		ackDone:  make(chan struct{}),
		inflight: make(map[ackID]struct{}),
	}
	r.stop, r.halt = context.WithCancel(ctx)
	r.hctx, r.hcancel = context.WithCancel(r.io)
	r.unhook = context.AfterFunc(r.stop, r.queue.wake)
	go r.ackLoop()
	r.workers.Add(e.Concurrency)
	for range e.Concurrency {
		go r.work()
	}
	err := r.fetch()
	r.shutdown()
	return err
}

// addStream starts reading a stream.
func (r *run) addStream(name, key string, draining bool, cur *setCursor) *stream {
	s := &stream{origin: origin{name: name, key: key}, claimAt: "0-0", draining: draining, cur: cur}
	r.streams = append(r.streams, s)
	return s
}

// fetch prepares, reclaims each Beat and reads until the stop; it returns
// only errors that retrying cannot cure.
func (r *run) fetch() error {
	defer r.halt()
	for first := true; r.stop.Err() == nil; {
		if what, err := r.src.prepare(r, first); err != nil {
			if err = r.retry(what, err); err != nil {
				return err
			}
			continue
		}
		first = false
		if time.Since(r.claimed) >= r.e.Beat && r.reclaimable() {
			r.claimed = time.Now()
			if err := r.reclaim(); err != nil {
				if err = r.retry("reclaim", err); err != nil {
					return err
				}
				continue
			}
		}
		if what, err := r.src.read(r); err != nil {
			if err = r.retry(what, err); err != nil {
				return err
			}
			continue
		}
		r.e.watch.OK()
		r.back.Reset()
	}
	return nil
}

// reclaim takes over the entries idle for MinIdle from any consumer of the
// group (XAUTOCLAIM, resuming its scan where the last one stopped) on every
// stream whose own pending list is drained, and dispatches them: retries,
// outside any order. Entries whose data was trimmed meanwhile leave the
// pending list with it: they are counted as trimmed and reported to the
// AckHooks.
func (r *run) reclaim() error {
	for _, s := range r.streams {
		if s.draining {
			continue // its own pending list comes first, in order
		}
		ac, err := r.e.c.conn.XAutoClaim(r.io, s.key, r.e.Group, r.e.Name, r.e.MinIdle, s.claimAt, int64(r.e.Count))
		if err != nil {
			return err
		}
		r.e.watch.OK()
		r.back.Reset()
		if n := len(ac.Deleted); n > 0 {
			r.e.stats.trimmed.Add(int64(n))
			r.e.acked(r.io, s.origin, n, true, 0, nil)
		}
		s.claimAt = ac.Next
		r.e.stats.reclaimed.Add(int64(len(ac.Entries)))
		if len(ac.Entries) > 0 {
			r.dispatchPending(r.fetched(s, ac.Entries, 0), r.claimed)
		}
	}
	return nil
}

// reclaimable reports whether some stream's own pending list is drained.
func (r *run) reclaimable() bool {
	for _, s := range r.streams {
		if !s.draining {
			return true
		}
	}
	return false
}

// retry handles a failed engine call of the fetch loop: it waits out a
// transient failure with the loop's backoff (the outage logged once), or
// returns the error. A group that vanished (destroyed by hand, or lost with
// the engine's data) is created again on every stream. A failure once the
// run is stopping is its stop.
func (r *run) retry(op string, err error) error {
	if r.stop.Err() != nil {
		return nil
	}
	if errors.Is(err, ErrGroupNotFound) {
		r.e.log.Error("the group vanished; creating it again", "op", op, "err", err)
		if err = r.recreate(); err == nil {
			return nil
		}
	}
	if !transient(err) {
		return err
	}
	r.e.watch.Failed(op, err)
	outage.Sleep(r.stop, r.back.Next())
	return nil
}

func (r *run) recreate() error {
	for _, s := range r.streams {
		if _, err := r.e.c.conn.XGroupCreate(r.io, s.key, r.e.Group, r.e.recreateAt); err != nil {
			return err
		}
	}
	return nil
}

// fetched is an entry of a stream and its delivery count; 0 when it was
// pending before the fetch (a drain or a reclaim) and the engine has to be
// asked.
type fetched struct {
	s        *stream
	id       string // the entry id as the engine spells it
	ev       Event
	attempts int64
}

// fetched decodes the entries of one read of s, into the run's scratch
// (valid until the next read); an undecodable one is logged and left
// pending.
func (r *run) fetched(s *stream, entries []wire.Entry, attempts int64) []fetched {
	fs := r.scratch[:0]
	for _, e := range entries {
		ev, err := decodeEvent(e)
		if err != nil {
			r.e.logFor(s.name).Error("undecodable entry left pending", "entry", e.ID, "err", err)
			continue
		}
		fs = append(fs, fetched{s, e.ID, ev, attempts})
	}
	r.scratch = fs[:0]
	return fs
}

// dispatchPending hands over entries, in order, some of which were pending
// before this fetch (attempts 0): of those, entries whose data is gone are
// acknowledged and counted, the others get their delivery counts in one
// round trip per stream. An entry that meanwhile left this consumer, or
// that this run still holds (queued, running, buffered by the source or
// awaiting its ack: after a long outage a reclaim takes them back like the
// entries of a crashed peer), is skipped.
func (r *run) dispatchPending(fs []fetched, since time.Time) {
	if !slices.ContainsFunc(fs, func(f fetched) bool { return f.attempts == 0 }) {
		r.dispatch(fs, since)
		return
	}
	live := map[*stream][]string{}
	gone := map[*stream][]string{}
	for _, f := range fs {
		if f.attempts > 0 {
			continue
		}
		switch {
		case f.ev.Fields == nil:
			gone[f.s] = append(gone[f.s], f.id)
		case !r.holds(f):
			live[f.s] = append(live[f.s], f.id)
		}
	}
	for s, ids := range gone {
		r.e.stats.trimmed.Add(int64(len(ids)))
		// Acknowledged at once, not through the ack batch: a reclaim in
		// the meantime would report the same trimmed entries again.
		_, err := r.e.c.conn.XAck(r.io, s.key, r.e.Group, ids...)
		if err != nil {
			r.acks.add(&s.origin, ids...)
		}
		r.e.acked(r.io, s.origin, len(ids), true, 0, err)
	}
	counts := map[*stream]map[string]wire.PendingRow{}
	for s, ids := range live {
		rows, err := r.e.c.conn.XPendingIDs(r.io, s.key, r.e.Group, ids)
		if err != nil {
			// Left in this consumer's pending list: the next reclaim retries.
			r.e.logFor(s.name).Warn("delivery counts unavailable; entries left for a reclaim", "err", err, "entries", len(ids))
			continue
		}
		counts[s] = rows
	}
	out := fs[:0]
	for _, f := range fs {
		if f.attempts == 0 {
			row, ok := counts[f.s][f.id]
			if !ok || f.ev.Fields == nil || row.Consumer != r.e.Name {
				continue
			}
			f.attempts = row.Deliveries
		}
		out = append(out, f)
	}
	r.dispatch(out, since)
}

// holds reports whether this run holds an entry: fetched and not
// handed out by the source, queued or running, or awaiting its ack.
func (r *run) holds(f fetched) bool {
	if f.s.cur != nil {
		for _, ev := range f.s.cur.buf {
			if ev.Entry == f.ev.Entry {
				return true
			}
		}
	}
	k := ackID{&f.s.origin, f.id}
	r.mu.Lock()
	_, ok := r.inflight[k]
	r.mu.Unlock()
	return ok || r.acks.has(k)
}

// dispatch queues the entries of one fetch for the handlers, or hands them
// back when the consumer is stopping. An entry already queued or running (a
// reclaim of an entry whose handler overran) is not queued twice.
func (r *run) dispatch(fs []fetched, since time.Time) {
	if len(fs) == 0 {
		return
	}
	b := &batch{deadline: since.Add(r.e.MinIdle - r.e.margin())}
	jobs := make([]*job, 0, len(fs))
	all := make([]job, len(fs)) // one allocation for the fetch's jobs
	r.mu.Lock()
	for _, f := range fs {
		k := ackID{&f.s.origin, f.id}
		if _, dup := r.inflight[k]; dup {
			continue
		}
		r.inflight[k] = struct{}{}
		j := &all[len(jobs)]
		j.fetched, j.b = f, b
		jobs = append(jobs, j)
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
	delete(r.inflight, j.key())
	r.handback = append(r.handback, j.key())
	r.mu.Unlock()
	j.done()
}

// settled forgets a fetched entry once its outcome is decided.
func (r *run) settled(j *job) {
	r.mu.Lock()
	delete(r.inflight, j.key())
	r.mu.Unlock()
	j.done()
}
