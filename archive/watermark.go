package archive

import (
	"context"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
)

// The archive watermark W of a stream is the EVT id of its newest archived
// event. The manifest in the store is its truth; the engine caches it in
// "emq:{q}:stream:<name>:archived" so that readers (the guarded trim, the
// Reader, retention, the dashboard) learn it without the store. An
// [Archiver] writes the cache on every cycle; these functions are for
// tools and tests that inspect or repair it.

// Watermark returns the cached watermark of s and true, or the zero ID and
// false when none is cached (absent is an answer, not an error). A cached
// value that is not an EVT id returns an [*echomq.IDError].
func Watermark(ctx context.Context, s *echomq.Stream) (echomq.ID, bool, error) {
	if err := s.Err(); err != nil {
		return echomq.ID{}, false, watermarkError("get archived", s, err)
	}
	v, ok, err := clientconn.Of(s.Client()).Get(ctx, keyspace.ArchivedKey(s.Queue(), s.Name()))
	if err != nil || !ok {
		return echomq.ID{}, false, watermarkError("get archived", s, err)
	}
	w, err := echomq.ParseEventID(v)
	if err != nil {
		return echomq.ID{}, false, watermarkError("get archived", s, err)
	}
	return w, true, nil
}

// SetWatermark caches w as the watermark of s. An id of another brand than
// [echomq.BrandEvent] returns an [*echomq.KindError] before any I/O. The
// write is taken by a full engine: a cycle caches W before its trim, which
// frees memory.
func SetWatermark(ctx context.Context, s *echomq.Stream, w echomq.ID) error {
	if err := s.Err(); err != nil {
		return watermarkError("put archived", s, err)
	}
	if w.Brand() != echomq.BrandEvent {
		return watermarkError("put archived", s, &echomq.KindError{Want: echomq.BrandEvent, Got: w.Brand()})
	}
	// SetFreeing: the archive cycle caches W before its trim, so a full
	// engine must take it (see internal/wire/oom.go).
	return watermarkError("put archived", s, clientconn.Of(s.Client()).SetFreeing(ctx, keyspace.ArchivedKey(s.Queue(), s.Name()), w.String()))
}

// ClearWatermark deletes the cached watermark of s and reports whether one
// was cached.
func ClearWatermark(ctx context.Context, s *echomq.Stream) (bool, error) {
	if err := s.Err(); err != nil {
		return false, watermarkError("clear archived", s, err)
	}
	n, err := clientconn.Of(s.Client()).Del(ctx, keyspace.ArchivedKey(s.Queue(), s.Name()))
	return n > 0, watermarkError("clear archived", s, err)
}

// watermarkError wraps err in an [*echomq.OpError] naming the stream, as
// every verb of the root package does; nil stays nil.
func watermarkError(op string, s *echomq.Stream, err error) error {
	if err == nil {
		return nil
	}
	return &echomq.OpError{Op: op, Key: s.Key(), Err: err}
}
