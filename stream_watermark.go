package echomq

import (
	"context"

	"github.com/echomq/echomq/internal/keyspace"
)

// PutArchived caches the archive watermark W, the EVT id of the newest
// archived event, in "emq:{q}:stream:<name>:archived". An id of another
// brand returns a [*KindError] before any I/O.
func (s *Stream) PutArchived(ctx context.Context, w ID) error {
	if err := s.ready(ctx); err != nil {
		return opError("put archived", s.key, err)
	}
	if !w.Is(BrandEvent) {
		return opError("put archived", s.key, &KindError{Want: BrandEvent, Got: w.Brand()})
	}
	// SetFreeing: the archive cycle caches W before its trim, so a full
	// engine must take it (see internal/wire/oom.go).
	return opError("put archived", s.key, s.c.conn.SetFreeing(ctx, keyspace.ArchivedKey(s.queue, s.name), w.String()))
}

// GetArchived returns the cached watermark and true, or the zero ID and
// false when none is cached (absent is an answer, not an error). A cached
// value that is not an EVT id returns an [*IDError].
func (s *Stream) GetArchived(ctx context.Context) (ID, bool, error) {
	if err := s.ready(ctx); err != nil {
		return ID{}, false, opError("get archived", s.key, err)
	}
	v, ok, err := s.c.conn.Get(ctx, keyspace.ArchivedKey(s.queue, s.name))
	if err != nil || !ok {
		return ID{}, false, opError("get archived", s.key, err)
	}
	w, err := ParseEventID(v)
	if err != nil {
		return ID{}, false, opError("get archived", s.key, err)
	}
	return w, true, nil
}

// ClearArchived deletes the cached watermark and reports whether one was
// cached.
func (s *Stream) ClearArchived(ctx context.Context) (bool, error) {
	if err := s.ready(ctx); err != nil {
		return false, opError("clear archived", s.key, err)
	}
	n, err := s.c.conn.Del(ctx, keyspace.ArchivedKey(s.queue, s.name))
	return n > 0, opError("clear archived", s.key, err)
}
