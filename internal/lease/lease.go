// Package lease is the one lease mechanism of EchoMQ: a key held with a
// random token, taken with SET NX PX, extended with a compare-and-extend
// and given back with a compare-and-delete, so only its holder can extend
// or free it. Node ids ("emq:{q}:node:<n>") and the archiver's stream locks
// ("emq:{q}:stream:<name>:archiver") are leases.
//
// # State model
//
// A Lease is held from Take until a renewal finds the key gone or under
// another token (lost: the holder was paused past the TTL, or the engine
// lost the key) or until Release. Held is also false once the TTL has run
// out since the last successful take or extension, measured from before
// that command was sent: while the engine is unreachable the holder cannot
// know whether the key still exists, so it must stop acting on the lease
// when the TTL could have expired, before anyone else could take it.
package lease

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/echomq/echomq/internal/wire"
)

var (
	// ErrHeld means Take found the key held by another token.
	ErrHeld = errors.New("echomq: lease held by another holder")
	// ErrLost means the key expired or another holder took it.
	ErrLost = errors.New("echomq: lease lost")
)

// Lease is a held key. Its methods are safe for concurrent use.
type Lease struct {
	conn  *wire.Conn
	key   string
	token string
	ttl   time.Duration

	mu         sync.Mutex
	validUntil time.Time // monotonic; the key is surely ours before it
	lost       bool
	keeping    bool

	stop chan struct{}
	done chan struct{}
}

// Take sets key to a fresh token for ttl if no one holds it. It returns
// [ErrHeld] when someone does, and the engine's error otherwise.
func Take(ctx context.Context, conn *wire.Conn, key string, ttl time.Duration) (*Lease, error) {
	var tok [16]byte
	_, _ = crand.Read(tok[:])
	l := &Lease{
		conn: conn, key: key, token: hex.EncodeToString(tok[:]), ttl: ttl,
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	sent := time.Now()
	ok, err := conn.SetNX(ctx, key, l.token, ttl)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrHeld
	}
	l.validUntil = sent.Add(ttl)
	return l, nil
}

// Key returns the leased key.
func (l *Lease) Key() string { return l.key }

// Held reports whether the lease is surely still held: not found lost,
// not released, and within its TTL of the last successful take or
// extension.
func (l *Lease) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.lost && time.Now().Before(l.validUntil)
}

// Extend sets the key's TTL to a full ttl again. It returns [ErrLost] (and
// the lease stays lost) when the key expired or another holder has it,
// and the engine's error, which changes nothing, when the engine cannot
// answer.
func (l *Lease) Extend(ctx context.Context) error {
	l.mu.Lock()
	lost := l.lost
	l.mu.Unlock()
	if lost {
		return ErrLost
	}
	sent := time.Now()
	ok, err := l.conn.PExpireIf(ctx, l.key, l.token, l.ttl)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !ok {
		l.lost = true
		return ErrLost
	}
	l.validUntil = sent.Add(l.ttl)
	return nil
}

// Keep extends the lease every third of its TTL in a goroutine of its own
// until Release. When a renewal finds the lease lost it calls lost (when
// set) from that goroutine and ends; every other renewal's outcome is
// passed to renewed (when set): nil when it succeeded, else the engine's
// error (the engine is unreachable), retried on the next beat. Keep is
// called at most once.
func (l *Lease) Keep(lost func(), renewed func(error)) {
	l.mu.Lock()
	if l.keeping || l.stop == nil {
		l.mu.Unlock()
		return
	}
	l.keeping = true
	stop := l.stop
	l.mu.Unlock()
	go func() {
		defer close(l.done)
		t := time.NewTicker(l.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
			err := l.Extend(ctx)
			cancel()
			switch {
			case errors.Is(err, ErrLost):
				if lost != nil {
					lost()
				}
				return
			case renewed != nil:
				renewed(err)
			}
		}
	}()
}

// Release stops the keeper (when Keep was called) and deletes the key if
// it still holds this lease's token. It is idempotent.
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	keeping := l.keeping
	first := l.stop != nil
	stop := l.stop
	l.stop = nil
	l.mu.Unlock()
	if !first {
		return nil
	}
	close(stop)
	if keeping {
		<-l.done
	}
	_, err := l.conn.DelIf(ctx, l.key, l.token)
	l.mu.Lock()
	l.lost = true
	l.mu.Unlock()
	return err
}
