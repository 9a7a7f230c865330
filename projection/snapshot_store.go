package projection

import (
	"context"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// SnapshotStore is the engine value that holds the snapshot of one
// incremental projection, "emq:{queue}:projection:<name>": an opaque byte
// string written and read whole, so whatever [Live] packs into it (state
// and checkpoint together) is replaced atomically. It is the [Store] a
// Live keeps its snapshots in by default. A SnapshotStore is a cheap
// handle, safe for concurrent use.
//
// Bad names are caught when the handle is made: every method of a store made
// from a bad queue or projection name returns the [*echomq.NameError] before
// any I/O.
type SnapshotStore struct {
	c    *echomq.Client
	conn *wire.Conn
	key  string
	err  error
}

// EngineStore returns the snapshot store of projection name in queue, in
// the client's engine. Names match [A-Za-z0-9._-]{1,128}; a queue may not
// be named "emq".
func EngineStore(c *echomq.Client, queue, name string) *SnapshotStore {
	s := &SnapshotStore{c: c, conn: clientconn.Of(c)}
	if err := keyspace.Queue(queue); err != nil {
		s.err = err
	} else if err := keyspace.Projection(name); err != nil {
		s.err = err
	} else {
		s.key = keyspace.ProjectionKey(queue, name)
	}
	return s
}

// Key returns the engine key ("" for a bad name).
func (s *SnapshotStore) Key() string { return s.key }

// Err returns the [*echomq.NameError] of a handle made from a bad name, or
// nil.
func (s *SnapshotStore) Err() error { return s.err }

func (s *SnapshotStore) ready(ctx context.Context) error {
	if s.err != nil {
		return s.err
	}
	return ctx.Err()
}

// Load returns the stored snapshot and true, or nil and false when none is
// stored (absent is an answer, not an error). Errors: the handle's
// [*echomq.NameError], [echomq.ErrWrongType] when the key holds another
// type, [echomq.ErrClosed], context errors, [*echomq.TransportError].
func (s *SnapshotStore) Load(ctx context.Context) ([]byte, bool, error) {
	if err := s.ready(ctx); err != nil {
		return nil, false, storeError("load snapshot", s.key, err)
	}
	v, ok, err := s.conn.Get(ctx, s.key)
	if err != nil || !ok {
		return nil, false, storeError("load snapshot", s.key, err)
	}
	return []byte(v), true, nil
}

// Save replaces the stored snapshot with b in one command. Errors as
// [SnapshotStore.Load]; on any error nothing was written.
func (s *SnapshotStore) Save(ctx context.Context, b []byte) error {
	if err := s.ready(ctx); err != nil {
		return storeError("save snapshot", s.key, err)
	}
	return storeError("save snapshot", s.key, s.conn.Set(ctx, s.key, string(b)))
}

// Delete removes the stored snapshot and reports whether one was stored.
// Errors as [SnapshotStore.Load].
func (s *SnapshotStore) Delete(ctx context.Context) (bool, error) {
	if err := s.ready(ctx); err != nil {
		return false, storeError("delete snapshot", s.key, err)
	}
	n, err := s.conn.Del(ctx, s.key)
	return n > 0, storeError("delete snapshot", s.key, err)
}

// storeError wraps an error of the store with its operation and key, as
// the root package's verbs do.
func storeError(op, key string, err error) error {
	if err == nil {
		return nil
	}
	return &echomq.OpError{Op: op, Key: key, Err: err}
}
