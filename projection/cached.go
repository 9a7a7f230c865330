package projection

import (
	"context"
	"sync"

	"github.com/echomq/echomq"
)

// Cached is a projection read many times while its inputs rarely change: it
// is folded once and served from memory until new entries arrive. Each
// [Cached.Get] asks every stream for entries above what was folded (one
// short range read per stream, empty when nothing is new); only new entries
// are folded, into a copy of the state made through the codec, so a state
// handed out earlier never changes under its reader.
//
// New entries are folded after what was folded before, merged by entry id
// among themselves; over several streams an order-sensitive fold meets the
// caveat of [Live.Run], which every ready-made fold is immune to.
//
// A window relative to now ([Last]) covers another span whenever the clock
// has moved to another millisecond, and is then folded afresh; give a fixed
// window ([All], [Since], [Between], [IDs]) to read from memory.
//
// Its methods are safe for concurrent use.
type Cached[S any] struct {
	p   Projection[S]
	w   Window
	src sources

	mu    sync.Mutex
	valid bool
	r     echomq.Range
	state S
	cp    []echomq.EntryID // last entry folded per stream; zero: none yet
	seen  []bool           // whether cp[i] is set
	stats CacheStats
}

// CacheStats counts what a [Cached] did.
type CacheStats struct {
	Reads   int64 // calls to Get that returned a state
	Hits    int64 // reads served from memory with nothing new to fold
	Refolds int64 // full folds of the window
	Applied int64 // events folded, by full folds and by increments
}

// NewCached returns the cached projection p of window w over srcs, without
// I/O. Errors: as [Fold]'s before-I/O errors.
func NewCached[S any](w Window, p Projection[S], srcs ...Source) (*Cached[S], error) {
	if err := p.Validate(); err != nil {
		return nil, opError("cache", p.Name, err)
	}
	s, err := checkSources(srcs)
	if err != nil {
		return nil, opError("cache", p.Name, err)
	}
	if _, err := w.resolve(srcs); err != nil {
		return nil, opError("cache", p.Name, err)
	}
	return &Cached[S]{p: p, w: w, src: s, cp: make([]echomq.EntryID, len(srcs)), seen: make([]bool, len(srcs))}, nil
}

// Get returns the state of the window as of now: from memory when no stream
// has an entry above what was folded, else after folding only the new
// entries. The state is shared with other readers: do not change it.
// Errors: read errors and [*CodecError] (the cached state is then kept as
// it was), and those of [Fold].
func (c *Cached[S]) Get(ctx context.Context) (S, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero S
	r, err := c.w.resolve(c.src.list)
	if err != nil {
		return zero, opError("cache", c.p.Name, err)
	}
	if !c.valid || r != c.r {
		if err := c.refold(ctx, r); err != nil {
			return zero, opError("cache", c.p.Name, err)
		}
		c.stats.Reads++
		return c.state, nil
	}
	ranges := make([]echomq.Range, len(c.cp))
	for i := range ranges {
		ranges[i] = r
		if c.seen[i] {
			ranges[i].From = echomq.Exclusive(c.cp[i])
		}
	}
	var next S
	cp, seen, n := append([]echomq.EntryID(nil), c.cp...), append([]bool(nil), c.seen...), 0
	for ev, err := range merge(ctx, c.src, ranges, defaultPageSize) {
		if err != nil {
			return zero, opError("cache", c.p.Name, err)
		}
		if n == 0 {
			if next, err = c.p.clone(c.state); err != nil {
				return zero, opError("cache", c.p.Name, err)
			}
		}
		next = c.p.Apply(next, ev)
		cp[ev.src], seen[ev.src] = ev.Entry, true
		n++
	}
	c.stats.Reads++
	if n == 0 {
		c.stats.Hits++
		return c.state, nil
	}
	c.state, c.cp, c.seen = next, cp, seen
	c.stats.Applied += int64(n)
	return c.state, nil
}

// refold folds the whole window afresh.
func (c *Cached[S]) refold(ctx context.Context, r echomq.Range) error {
	ranges := make([]echomq.Range, len(c.cp))
	for i := range ranges {
		ranges[i] = r
	}
	state := c.p.init()
	cp, seen := make([]echomq.EntryID, len(c.cp)), make([]bool, len(c.cp))
	var n int64
	for ev, err := range merge(ctx, c.src, ranges, defaultPageSize) {
		if err != nil {
			return err
		}
		state = c.p.Apply(state, ev)
		cp[ev.src], seen[ev.src] = ev.Entry, true
		n++
	}
	c.valid, c.r, c.state, c.cp, c.seen = true, r, state, cp, seen
	c.stats.Refolds++
	c.stats.Applied += n
	return nil
}

// Stats returns the counters.
func (c *Cached[S]) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Invalidate drops the cached state: the next Get folds the window afresh.
func (c *Cached[S]) Invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.valid = false
}
