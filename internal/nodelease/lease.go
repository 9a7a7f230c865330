// Package nodelease leases a snowflake node id from the engine so that two
// processes never mint with the same node id.
//
// # State model
//
// A lease is the key "{emq}:node:<n>" holding a random token, set with
// SET NX PX ttl. Acquire tries node ids from a random start and takes the
// first free one. While the process lives, a renewer extends the TTL every
// ttl/3 with a compare-and-extend script (only the holder's token extends
// it). When a renewal finds the key gone or held by another token (the
// process was paused past the TTL, or the engine restarted), the lease is
// lost: the renewer acquires a new node id and reports it through OnChange,
// and the minter moves to a fresh millisecond so ids stay increasing. Release
// deletes the key only if it still holds our token.
package nodelease

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// MaxNode is the largest node id.
const MaxNode = 1023

// ErrExhausted: every node id 0..1023 is leased by someone else.
var ErrExhausted = errors.New("echomq: no free node id (all 1024 are leased)")

var extendScript = wire.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

var releaseScript = wire.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

// Lease is a held node id and its renewer.
type Lease struct {
	conn     *wire.Conn
	ttl      time.Duration
	token    string
	log      *slog.Logger
	onChange func(node int)

	mu   sync.Mutex
	node int

	stop chan struct{}
	done chan struct{}
}

// Acquire takes a free node id and starts renewing it. onChange is called
// (from the renewer goroutine) when the lease was lost and replaced.
func Acquire(ctx context.Context, conn *wire.Conn, ttl time.Duration, log *slog.Logger, onChange func(node int)) (*Lease, error) {
	var tok [16]byte
	_, _ = crand.Read(tok[:])
	l := &Lease{conn: conn, ttl: ttl, token: hex.EncodeToString(tok[:]), log: log, onChange: onChange,
		stop: make(chan struct{}), done: make(chan struct{})}
	n, err := l.take(ctx)
	if err != nil {
		return nil, err
	}
	l.node = n
	go l.renew()
	return l, nil
}

func (l *Lease) take(ctx context.Context) (int, error) {
	start := rand.IntN(MaxNode + 1)
	for i := 0; i <= MaxNode; i++ {
		n := (start + i) % (MaxNode + 1)
		ok, err := l.conn.SetNX(ctx, keyspace.NodeKey(n), l.token, l.ttl)
		if err != nil {
			return 0, fmt.Errorf("echomq: lease node id: %w", err)
		}
		if ok {
			return n, nil
		}
	}
	return 0, ErrExhausted
}

// Node returns the leased node id.
func (l *Lease) Node() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.node
}

func (l *Lease) renew() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
		node := l.Node()
		res, err := l.conn.Run(ctx, extendScript, []string{keyspace.NodeKey(node)}, []string{l.token, fmt.Sprint(l.ttl.Milliseconds())})
		if err == nil && res == int64(0) {
			// Lost: someone else holds it, or it expired. Take a new one.
			if n, terr := l.take(ctx); terr == nil {
				l.mu.Lock()
				l.node = n
				l.mu.Unlock()
				l.log.Warn("echomq: node id lease lost; leased a new one", "old", node, "new", n)
				if l.onChange != nil {
					l.onChange(n)
				}
			} else {
				l.log.Error("echomq: node id lease lost and none could be leased", "node", node, "err", terr)
			}
		} else if err != nil {
			l.log.Warn("echomq: node id lease renewal failed", "node", node, "err", err)
		}
		cancel()
	}
}

// Release stops the renewer and frees the node id if we still hold it.
func (l *Lease) Release(ctx context.Context) error {
	close(l.stop)
	<-l.done
	_, err := l.conn.Run(ctx, releaseScript, []string{keyspace.NodeKey(l.Node())}, []string{l.token})
	return err
}
