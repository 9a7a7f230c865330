package archive

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// LockedError says another archiver holds the stream; it matches
// [ErrLocked]. Nothing was read, written or trimmed.
type LockedError struct {
	Queue, Stream string
	// Lost is set when this archiver's lease expired during the operation
	// (a pause longer than Config.LockTTL); it stopped before committing.
	Lost bool
}

func (e *LockedError) Error() string {
	if e.Lost {
		return fmt.Sprintf("archive: %s/%s: the archiver lease was lost mid-cycle; stopped before the commit", e.Queue, e.Stream)
	}
	return fmt.Sprintf("archive: %s/%s: another archiver holds this stream", e.Queue, e.Stream)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// streamLock is the held exclusion of one stream.
type streamLock struct {
	unlock func() error
	// valid reports whether the lock is still held; nil for a store lock,
	// which the kernel holds for as long as the process lives.
	lease *lease
}

// check returns a [*LockedError] when the lease was lost; it extends the
// lease, so the commit that follows has a full TTL ahead of it.
func (l *streamLock) check(ctx context.Context) error {
	if l.lease == nil {
		return nil
	}
	return l.lease.extend(ctx)
}

// lock takes the stream's lock: the store's own when it is a [Locker],
// else a lease in the engine.
func (a *Archiver) lock(ctx context.Context, q, name string) (*streamLock, error) {
	if lk, ok := a.store.(Locker); ok {
		obj := streamPrefix(q, name) + "lock"
		unlock, err := lk.Lock(ctx, obj)
		if errors.Is(err, ErrLocked) {
			return nil, &LockedError{Queue: q, Stream: name}
		}
		if err != nil {
			return nil, &StoreError{Op: "lock", Name: obj, Err: err}
		}
		return &streamLock{unlock: unlock}, nil
	}
	l, err := acquireLease(ctx, clientconn.Of(a.client), q, name, a.cfg.LockTTL)
	if err != nil {
		return nil, err
	}
	return &streamLock{unlock: l.release, lease: l}, nil
}

// lease is the engine lock "emq:{q}:stream:<name>:archiver": a random
// token set with SET NX PX, extended every third of its TTL while held.
type lease struct {
	conn          *wire.Conn
	q, name, key  string
	token         string
	ttl           time.Duration
	lost          atomic.Bool
	stop, stopped chan struct{}
}

func acquireLease(ctx context.Context, conn *wire.Conn, q, name string, ttl time.Duration) (*lease, error) {
	var tok [16]byte
	_, _ = crand.Read(tok[:])
	l := &lease{conn: conn, q: q, name: name, key: keyspace.ArchiverKey(q, name), token: hex.EncodeToString(tok[:]),
		ttl: ttl, stop: make(chan struct{}), stopped: make(chan struct{})}
	ok, err := conn.SetNX(ctx, l.key, l.token, ttl)
	if err != nil {
		return nil, fmt.Errorf("archive: %s/%s: take lease: %w", q, name, err)
	}
	if !ok {
		return nil, &LockedError{Queue: q, Stream: name}
	}
	go l.renew()
	return l, nil
}

func (l *lease) renew() {
	defer close(l.stopped)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
			ok, err := l.conn.PExpireIf(ctx, l.key, l.token, l.ttl)
			cancel()
			if err == nil && !ok {
				l.lost.Store(true)
				return
			}
		}
	}
}

func (l *lease) extend(ctx context.Context) error {
	if l.lost.Load() {
		return &LockedError{Queue: l.q, Stream: l.name, Lost: true}
	}
	ok, err := l.conn.PExpireIf(ctx, l.key, l.token, l.ttl)
	if err != nil {
		return fmt.Errorf("archive: %s/%s: extend lease: %w", l.q, l.name, err)
	}
	if !ok {
		l.lost.Store(true)
		return &LockedError{Queue: l.q, Stream: l.name, Lost: true}
	}
	return nil
}

func (l *lease) release() error {
	close(l.stop)
	<-l.stopped
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := l.conn.DelIf(ctx, l.key, l.token)
	return err
}
