// Package nodelease leases a snowflake node id from the engine so that two
// processes never mint with the same node id.
//
// # State model
//
// A node lease is a [lease.Lease] on "emq:{q}:node:<n>", one per queue a
// client mints for: ids are unique within their queue, so node ids need only
// be distinct among the queue's writers, and a user confined by ACL to its
// queues' keys can lease them without reaching another tenant's. Acquire
// tries node ids from a random start and takes the first free one. While the process
// lives, the lease's keeper extends it every third of its TTL. When a
// renewal finds the key gone or held by another token (the process was
// paused past the TTL, or the engine restarted), the lease is lost: a
// replacer takes a new node id (retrying every third of the TTL while the
// engine cannot answer) and reports it through OnChange, and the minter
// moves to a fresh millisecond so ids stay increasing. From the moment the
// lease may have lapsed (its TTL ran out since the last renewal the engine
// confirmed) until a new one is held, [Lease.Holds] is false and the client
// mints nothing: another process may hold the node id by then. Release
// frees the key only if it still holds our token.
package nodelease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/lease"
	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/wire"
)

// MaxNode is the largest node id a writer may lease: 1023 is the engine's
// (the ids the append scripts choose), never leased.
const MaxNode = 1022

// ErrExhausted means every node id 0..1022 of the queue is leased by
// someone else.
var ErrExhausted = errors.New("echomq: no free node id in the queue (all 1023 writer node ids are leased)")

// Lease is a held node id, kept while the process lives.
type Lease struct {
	conn     *wire.Conn
	queue    string
	ttl      time.Duration
	log      *slog.Logger
	watch    *outage.Watch // logs each outage of the engine once
	onChange func(node int)

	mu   sync.Mutex
	node int
	cur  *lease.Lease

	lost chan struct{} // the keeper found the lease lost
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// Acquire takes a free node id in queue and starts keeping it. onChange is
// called (from the replacer goroutine) when the lease was lost and replaced.
func Acquire(ctx context.Context, conn *wire.Conn, queue string, ttl time.Duration, log *slog.Logger, onChange func(node int)) (*Lease, error) {
	l := &Lease{
		conn: conn, queue: queue, ttl: ttl, log: log, onChange: onChange, watch: outage.New(log, "echomq: node lease"),
		lost: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	n, cur, err := l.take(ctx)
	if err != nil {
		return nil, err
	}
	l.node, l.cur = n, cur
	l.keep(cur, n)
	go l.replace() //nolint:gosec // G118: the replacer outlives Acquire's ctx by design; Release stops it
	return l, nil
}

func (l *Lease) take(ctx context.Context) (int, *lease.Lease, error) {
	start := rand.IntN(MaxNode + 1)
	for i := 0; i <= MaxNode; i++ {
		n := (start + i) % (MaxNode + 1)
		cur, err := lease.Take(ctx, l.conn, keyspace.NodeKey(l.queue, n), l.ttl)
		if errors.Is(err, lease.ErrHeld) {
			continue
		}
		if err != nil {
			return 0, nil, fmt.Errorf("echomq: lease node id: %w", err)
		}
		return n, cur, nil
	}
	return 0, nil, ErrExhausted
}

func (l *Lease) keep(cur *lease.Lease, node int) {
	cur.Keep(func() {
		select {
		case l.lost <- struct{}{}:
		default:
		}
	}, func(err error) {
		if err == nil {
			l.watch.OK()
		} else if !l.watch.Failed("renew node lease", err) && !l.watch.Down() {
			l.log.Warn("echomq: node id lease renewal failed", "queue", l.queue, "node", node, "err", err)
		}
	})
}

// replace takes a new node id each time the kept one is lost.
func (l *Lease) replace() {
	defer close(l.done)
	for {
		select {
		case <-l.stop:
			return
		case <-l.lost:
		}
		old := l.Node()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
			n, cur, err := l.take(ctx)
			cancel()
			if err == nil {
				l.mu.Lock()
				l.node, l.cur = n, cur
				l.mu.Unlock()
				l.keep(cur, n)
				l.watch.OK()
				l.log.Warn("echomq: node id lease lost; leased a new one", "queue", l.queue, "old", old, "new", n)
				if l.onChange != nil {
					l.onChange(n)
				}
				break
			}
			if !l.watch.Failed("lease node id", err) && !l.watch.Down() {
				l.log.Error("echomq: node id lease lost and none could be leased; retrying", "queue", l.queue, "node", old, "err", err)
			}
			select {
			case <-l.stop:
				return
			case <-time.After(l.ttl / 3):
			}
		}
	}
}

// Node returns the leased node id.
func (l *Lease) Node() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.node
}

// Holds reports whether node is the leased node id and its lease is surely
// still held. A minter checks it after minting an id under node: true
// means the lease was held when the id was minted (Held only ever turns
// false for one lease), so no other process could mint under node then.
func (l *Lease) Holds(node int) bool {
	l.mu.Lock()
	n, cur := l.node, l.cur
	l.mu.Unlock()
	return n == node && cur.Held()
}

// Release stops keeping the node id and frees it if we still hold it. It
// is idempotent.
func (l *Lease) Release(ctx context.Context) error {
	var err error
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.mu.Lock()
		cur := l.cur
		l.mu.Unlock()
		err = cur.Release(ctx)
	})
	return err
}
