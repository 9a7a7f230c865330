package projection

import (
	"context"
	"sync"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/startstop"
)

// Live is an incremental projection: a state plus a checkpoint vector (the
// last entry id folded per stream), kept current by [Live.CatchUp] or
// [Live.Run], persisted as snapshots so a restart resumes instead of
// refolding, and recomputable with [Live.Rebuild]. Its methods are safe for
// concurrent use; readers use [Live.State] or [Live.Read].
//
// The state always covers the log exactly up to the checkpoint: an event is
// folded first and the checkpoint moved over it after, under one lock, and a
// snapshot encodes state and checkpoint under that lock into one value.
type Live[S any] struct {
	p        Projection[S]
	src      sources
	cfg      LiveConfig
	storeKey string

	mu      sync.Mutex // guards everything below
	opened  bool
	start   Start
	state   S
	cp      []echomq.EntryID
	applied int64

	saveMu sync.Mutex        // orders snapshots: a later one is never overwritten by an earlier one
	svc    startstop.Service // Run, Start and Stop
}

// NewLive returns the live projection p over srcs (the whole log of each,
// from the start), without I/O. Errors: an [*echomq.ArgumentError] for a nil
// Apply, bad arguments to a ready-made fold, no sources, a nil source, a
// stream given twice, or a negative config value; the [*echomq.NameError]
// of a source or of the store.
func NewLive[S any](p Projection[S], cfg *LiveConfig, srcs ...Source) (*Live[S], error) {
	if err := p.Validate(); err != nil {
		return nil, opError("live", p.Name, err)
	}
	s, err := checkSources(srcs)
	if err != nil {
		return nil, opError("live", p.Name, err)
	}
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, opError("live", p.Name, err)
	}
	l := &Live[S]{p: p, src: s, cfg: c, storeKey: p.Name, cp: make([]echomq.EntryID, len(srcs))}
	if c.Store != nil {
		if e, ok := c.Store.(interface{ Err() error }); ok && e.Err() != nil {
			return nil, opError("live", p.Name, e.Err())
		}
		if k, ok := c.Store.(interface{ Key() string }); ok {
			l.storeKey = k.Key()
		}
	}
	return l, nil
}

// Open loads the stored snapshot, once; later calls return the first
// answer. CatchUp, Run, Save and the readers open the projection themselves.
// Errors: the store's error; a [*SnapshotError] for a stored value that is
// not a snapshot and a [*CodecError] for a state the codec cannot decode
// (in both cases nothing is loaded and the projection stays closed:
// [Live.Rebuild] replaces the snapshot).
func (l *Live[S]) Open(ctx context.Context) (Start, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open(ctx)
}

func (l *Live[S]) open(ctx context.Context) (Start, error) {
	if l.opened {
		return l.start, nil
	}
	l.state = l.p.init()
	if l.cfg.Store == nil {
		l.opened = true
		return l.start, nil
	}
	b, ok, err := l.cfg.Store.Load(ctx)
	if err != nil {
		return 0, opError("open", l.p.Name, err)
	}
	if !ok {
		l.opened = true
		return l.start, nil
	}
	h, cp, data, err := decodeSnapshot(l.storeKey, b)
	if err != nil {
		return 0, opError("open", l.p.Name, err)
	}
	if h.Version != l.p.Version || h.Name != l.p.Name || !compatible(cp, l.src.keys) {
		l.opened, l.start = true, StartRebuild
		return l.start, nil
	}
	state, err := l.p.decode(data)
	if err != nil {
		return 0, opError("open", l.p.Name, err)
	}
	l.state, l.applied = state, h.Applied
	for i := range cp {
		l.cp[i] = cp[i].Last
	}
	l.opened, l.start = true, StartResumed
	return l.start, nil
}

// CatchUp folds the events appended after the checkpoint, every stream
// merged by entry id, and returns how many it folded; then, when a store is
// configured and it folded any, it saves a snapshot. It opens the projection
// first. Errors: those of [Live.Open], the sources' read errors (the events
// folded before the failure stay folded and the checkpoint covers exactly
// them), the store's error, a [*CodecError].
func (l *Live[S]) CatchUp(ctx context.Context) (int, error) {
	l.mu.Lock()
	if _, err := l.open(ctx); err != nil {
		l.mu.Unlock()
		return 0, err
	}
	n, err := l.catchUp(ctx, &l.state, l.cp, &l.applied)
	l.mu.Unlock()
	if err != nil {
		return n, opError("catch up", l.p.Name, err)
	}
	if n > 0 && l.cfg.Store != nil {
		return n, l.Save(ctx)
	}
	return n, nil
}

// catchUp folds what lies above cp into *state, moving cp and *applied
// with each event.
func (l *Live[S]) catchUp(ctx context.Context, state *S, cp []echomq.EntryID, applied *int64) (int, error) {
	ranges := make([]echomq.Range, len(cp))
	for i, e := range cp {
		ranges[i] = echomq.Range{From: echomq.Exclusive(e)}
	}
	n := 0
	for ev, err := range merge(ctx, l.src, ranges, l.cfg.PageSize) {
		if err != nil {
			return n, err
		}
		if ev.Entry.Compare(cp[ev.src]) <= 0 {
			continue
		}
		*state = l.p.Apply(*state, ev)
		cp[ev.src] = ev.Entry
		*applied++
		n++
	}
	return n, nil
}

// Rebuild refolds the whole log into a fresh state, replaces the live state
// and checkpoint with it, saves a snapshot when a store is configured, and
// returns how many events the new state holds. The long fold runs without
// holding the lock (readers keep the old state meanwhile); only the events
// appended during it are folded under the lock before the swap. Rebuild
// also replaces a snapshot Open refused. Errors: read errors (the live state
// is then left as it was), the store's error, a [*CodecError].
func (l *Live[S]) Rebuild(ctx context.Context) (int, error) {
	state := l.p.init()
	cp := make([]echomq.EntryID, len(l.cp))
	var applied int64
	if _, err := l.catchUp(ctx, &state, cp, &applied); err != nil {
		return 0, opError("rebuild", l.p.Name, err)
	}
	l.mu.Lock()
	if _, err := l.catchUp(ctx, &state, cp, &applied); err != nil {
		l.mu.Unlock()
		return 0, opError("rebuild", l.p.Name, err)
	}
	l.state, l.cp, l.applied = state, cp, applied
	if !l.opened {
		l.opened, l.start = true, StartRebuild
	}
	l.mu.Unlock()
	if l.cfg.Store != nil {
		return int(applied), l.Save(ctx)
	}
	return int(applied), nil
}
