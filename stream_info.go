package echomq

import (
	"context"
	"errors"
)

// StreamInfo describes a stream.
type StreamInfo struct {
	Exists bool
	Length int64
	// First and Last are the oldest and newest events (nil when empty).
	First, Last *Event
	// LastGenerated is the highest entry id the stream ever accepted; an
	// append must be above it.
	LastGenerated EntryID
	// MemoryBytes is the engine's MEMORY USAGE of the key, -1 when the
	// engine does not report it.
	MemoryBytes int64
}

// Info returns the stream's length, ends and memory use. A missing stream
// returns Exists false and no error.
func (s *Stream) Info(ctx context.Context) (StreamInfo, error) {
	if err := s.ready(ctx); err != nil {
		return StreamInfo{}, opError("info", s.key, err)
	}
	// A missing key is asked about with EXISTS first: XINFO of it is an
	// error reply, which the engine counts (INFO errorstats) each time a
	// dashboard or a scrape looks at a stream not yet written.
	if n, err := s.c.conn.Exists(ctx, s.key); err != nil || n == 0 {
		return StreamInfo{MemoryBytes: -1}, opError("info", s.key, err)
	}
	raw, ok, err := s.c.conn.XInfoStream(ctx, s.key)
	if err != nil || !ok {
		return StreamInfo{MemoryBytes: -1}, opError("info", s.key, err)
	}
	info := StreamInfo{Exists: true, Length: raw.Length, MemoryBytes: -1}
	if raw.LastGeneratedID != "" {
		if info.LastGenerated, err = ParseEntryID(raw.LastGeneratedID); err != nil {
			return StreamInfo{}, opError("info", s.key, err)
		}
	}
	// The ends come from XRANGE rather than XINFO's first/last entry, which
	// not every engine reports.
	for _, p := range []struct {
		rev bool
		dst **Event
	}{{false, &info.First}, {true, &info.Last}} {
		evs, err := s.read(ctx, All, 1, p.rev)
		if err != nil {
			return StreamInfo{}, opError("info", s.key, err)
		}
		if len(evs) == 1 {
			*p.dst = &evs[0]
		}
	}
	n, ok, err := s.c.conn.MemoryUsage(ctx, s.key)
	var se *ServerError
	switch {
	case err == nil && ok:
		info.MemoryBytes = n
	case err != nil && !errors.As(err, &se):
		return StreamInfo{}, opError("info", s.key, err)
	}
	return info, nil
}
