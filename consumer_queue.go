package echomq

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// batch is the entries of one fetch: they share the time the engine
// delivered them, hence one handler deadline and one context.
type batch struct {
	ctx      context.Context
	cancel   context.CancelFunc
	deadline time.Time
	left     atomic.Int32 // jobs not settled yet; the last one cancels ctx
}

// job is one fetched entry waiting for, or in, a handler.
type job struct {
	fetched
	b *batch
}

// key is the job's entry as acknowledgements and the run's books name it.
func (j *job) key() ackID { return ackID{&j.s.origin, j.id} }

// done settles the job's share of its batch.
func (j *job) done() {
	if j.b.left.Add(-1) == 0 {
		j.b.cancel()
	}
}

// jobQueue is the bounded FIFO between the fetch loop and the handlers. A
// mutex and two conditions rather than a channel: the fetch loop hands
// over a whole fetch at once, and a busy handler takes the next entry
// without waking anyone, so a steady flow costs no goroutine switch per
// entry.
type jobQueue struct {
	mu       sync.Mutex
	notEmpty sync.Cond
	notFull  sync.Cond
	items    []*job
	head     int
	limit    int
	closed   bool
}

func newJobQueue(limit int) *jobQueue {
	q := &jobQueue{limit: limit}
	q.notEmpty.L, q.notFull.L = &q.mu, &q.mu
	return q
}

// push queues jobs once fewer than limit are queued; it returns false
// without queueing them when stop ends first.
func (q *jobQueue) push(stop context.Context, jobs []*job) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items)-q.head >= q.limit && stop.Err() == nil {
		q.notFull.Wait()
	}
	if stop.Err() != nil {
		return false
	}
	q.items = append(q.items, jobs...)
	q.notEmpty.Broadcast()
	return true
}

// pop returns the next job, waiting for one; false once the queue is
// closed and empty.
func (q *jobQueue) pop() (*job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) && !q.closed {
		q.notEmpty.Wait()
	}
	if q.head == len(q.items) {
		return nil, false
	}
	j := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	switch {
	case q.head == len(q.items):
		q.items, q.head = q.items[:0], 0
	case q.head > q.limit: // keep the backing array from growing forever
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.notFull.Signal()
	return j, true
}

// wake makes waiting pushers look at the stop again.
func (q *jobQueue) wake() {
	q.mu.Lock()
	q.notFull.Broadcast()
	q.mu.Unlock()
}

// close ends the queue: pop drains what is left, then reports false.
func (q *jobQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.notEmpty.Broadcast()
	q.mu.Unlock()
}

// ackID is an entry to acknowledge: its stream and its id as the engine
// spells it.
type ackID struct {
	o  *origin
	id string
}

// ackBuffer collects the entries to acknowledge; the acknowledger is woken
// only when the buffer goes from empty to not empty.
type ackBuffer struct {
	mu      sync.Mutex
	ids     []ackID
	sending []ackID // taken, their XACK not returned yet
	closed  bool
	wakeup  chan struct{}
	done    chan struct{} // closed by close
}

func newAckBuffer() *ackBuffer {
	return &ackBuffer{wakeup: make(chan struct{}, 1), done: make(chan struct{})}
}

func (a *ackBuffer) add(o *origin, ids ...string) {
	a.mu.Lock()
	first := len(a.ids) == 0
	for _, id := range ids {
		a.ids = append(a.ids, ackID{o, id})
	}
	a.mu.Unlock()
	if first {
		a.signal()
	}
}

func (a *ackBuffer) signal() {
	select {
	case a.wakeup <- struct{}{}:
	default:
	}
}

// take moves up to limit entries into buf and marks them being sent
// (until sent); closed reports whether no more will come.
func (a *ackBuffer) take(limit int, buf []ackID) (ids []ackID, pending int, closed bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := min(limit, len(a.ids))
	buf = append(buf[:0], a.ids[:n]...)
	a.ids = append(a.ids[:0], a.ids[n:]...)
	a.sending = buf
	return buf, len(a.ids), a.closed
}

// sent forgets the entries taken last, their XACK returned.
func (a *ackBuffer) sent() {
	a.mu.Lock()
	a.sending = nil
	a.mu.Unlock()
}

// has reports whether an entry awaits its acknowledgement.
func (a *ackBuffer) has(k ackID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Contains(a.ids, k) || slices.Contains(a.sending, k)
}

func (a *ackBuffer) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	close(a.done)
	a.signal()
}
