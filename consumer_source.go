package echomq

import (
	"context"
	"time"
)

// streamSource is a [Consumer]'s [fetchSource]: one stream, read first
// from the consumer's own pending list (entries delivered to this name
// before a crash or restart), in entry order, then by blocking reads of new
// entries.
type streamSource struct {
	c      *Consumer
	s      *stream
	cursor string // the drain's position in the own pending list
}

// prepare creates the group at Start when missing; a consumer started
// while the engine is down waits for it instead of failing.
func (src *streamSource) prepare(r *run, first bool) (string, error) {
	if !first {
		return "", nil
	}
	c := src.c
	if _, err := c.c.conn.XGroupCreate(r.io, c.s.key, c.cfg.Group, c.start); err != nil {
		return "create group", err
	}
	src.s = r.addStream(c.cfg.Stream, c.s.key, true, nil)
	src.cursor = "0"
	return "", nil
}

// read drains the own pending list with a cursor that moves past every
// entry it returned, so an entry that keeps failing cannot hold the drain;
// once drained, it blocks up to Beat for new entries (XREADGROUP … BLOCK
// … >) on a connection of its own.
func (src *streamSource) read(r *run) (string, error) {
	c, s := src.c, src.s
	if s.draining {
		since := time.Now()
		entries, err := c.c.conn.XReadGroup(r.io, s.key, c.cfg.Group, c.cfg.Name, src.cursor, int64(c.cfg.Count), -1)
		if err != nil {
			return "drain", err
		}
		if len(entries) == 0 {
			s.draining = false
			return "", nil
		}
		src.cursor = entries[len(entries)-1].ID
		r.dispatchPending(r.fetched(s, entries, 0), since)
		return "", nil
	}
	ctx, cancel := context.WithTimeout(r.io, c.cfg.Beat+readSlack)
	entries, err := c.c.conn.XReadGroup(ctx, s.key, c.cfg.Group, c.cfg.Name, ">", int64(c.cfg.Count), c.cfg.Beat)
	cancel()
	if err != nil {
		return "read", err
	}
	// The engine delivered these when the blocked read returned; the
	// margin absorbs the reply's trip.
	r.dispatch(r.fetched(s, entries, 1), time.Now())
	return "", nil
}
