package archive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	leasepkg "github.com/echomq/echomq/internal/lease"
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

// lease is the engine lock "emq:{q}:stream:<name>:archiver", a
// [lease.Lease] kept every third of its TTL while held.
type lease struct {
	q, name string
	l       *leasepkg.Lease
}

func acquireLease(ctx context.Context, conn *wire.Conn, q, name string, ttl time.Duration) (*lease, error) {
	l, err := leasepkg.Take(ctx, conn, keyspace.ArchiverKey(q, name), ttl)
	if errors.Is(err, leasepkg.ErrHeld) {
		return nil, &LockedError{Queue: q, Stream: name}
	}
	if err != nil {
		return nil, fmt.Errorf("archive: %s/%s: take lease: %w", q, name, err)
	}
	l.Keep(nil, nil) // a lost lease is found by extend, before the commit
	return &lease{q: q, name: name, l: l}, nil
}

func (l *lease) extend(ctx context.Context) error {
	err := l.l.Extend(ctx)
	if errors.Is(err, leasepkg.ErrLost) {
		return &LockedError{Queue: l.q, Stream: l.name, Lost: true}
	}
	if err != nil {
		return fmt.Errorf("archive: %s/%s: extend lease: %w", l.q, l.name, err)
	}
	return nil
}

func (l *lease) release() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return l.l.Release(ctx)
}
