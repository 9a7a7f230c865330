package projection

import (
	"context"
	"time"

	"github.com/echomq/echomq"
)

// Save writes a snapshot now: the state and checkpoint taken together under
// the lock, encoded with the projection's codec into one value, stored by
// one write. It opens the projection first, so it never overwrites a stored
// snapshot with an unopened state. Errors: an [*echomq.ArgumentError] when
// no store is configured; a [*CodecError] when the codec cannot encode the
// state (nothing is written); the store's error; those of [Live.Open].
func (l *Live[S]) Save(ctx context.Context) error {
	if l.cfg.Store == nil {
		return opError("save", l.p.Name, argError("store", "the live projection has no Store"))
	}
	l.saveMu.Lock()
	defer l.saveMu.Unlock()
	l.mu.Lock()
	if _, err := l.open(ctx); err != nil {
		l.mu.Unlock()
		return err
	}
	data, err := l.p.encode(l.state)
	cp, applied := l.checkpoint(), l.applied
	l.mu.Unlock()
	if err != nil {
		return opError("save", l.p.Name, err)
	}
	start := time.Now()
	err = l.cfg.Store.Save(ctx, encodeSnapshot(l.p.Name, l.p.Version, applied, cp, data))
	l.checkpointed(ctx, cp, applied, time.Since(start), err)
	if err != nil {
		return opError("save", l.p.Name, err)
	}
	if l.cfg.OnSnapshot != nil {
		l.cfg.OnSnapshot(cp, applied)
	}
	return nil
}

// checkpoint copies the checkpoint; the caller holds mu.
func (l *Live[S]) checkpoint() Checkpoint {
	cp := make(Checkpoint, len(l.cp))
	for i, e := range l.cp {
		cp[i] = Position{Stream: l.src.keys[i], Last: e}
	}
	return cp
}

// State returns a private copy of the state (made through the codec, so the
// caller may keep and change it) and the checkpoint it covers. It opens the
// projection first. Errors: a [*CodecError]; those of [Live.Open].
func (l *Live[S]) State(ctx context.Context) (S, Checkpoint, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var zero S
	if _, err := l.open(ctx); err != nil {
		return zero, nil, err
	}
	s, err := l.p.clone(l.state)
	if err != nil {
		return zero, nil, opError("state", l.p.Name, err)
	}
	return s, l.checkpoint(), nil
}

// Read calls fn with the state and the checkpoint it covers, under the lock
// that folding takes: no copy is made, so fn must not keep or change the
// state, and folding waits until fn returns (fn must not call the Live's
// methods, which take that lock). It opens the projection first
// and returns the errors of [Live.Open].
func (l *Live[S]) Read(ctx context.Context, fn func(state S, cp Checkpoint)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.open(ctx); err != nil {
		return err
	}
	fn(l.state, l.checkpoint())
	return nil
}

// Applied returns how many events the state holds: those folded since Init,
// including the ones a resumed snapshot brought.
func (l *Live[S]) Applied() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.applied
}

// Checkpoint returns the current checkpoint.
func (l *Live[S]) Checkpoint() Checkpoint {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checkpoint()
}

// apply folds one followed event unless the checkpoint already covers it (a
// catch-up or rebuild may have read past a follower); the caller holds mu.
func (l *Live[S]) apply(ev Event) bool {
	if ev.Entry.Compare(l.cp[ev.src]) <= 0 {
		return false
	}
	l.state = l.p.Apply(l.state, ev)
	l.cp[ev.src] = ev.Entry
	l.applied++
	return true
}

// positions returns the checkpoint as the bounds followers start after.
func (l *Live[S]) positions() []echomq.Bound {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := make([]echomq.Bound, len(l.cp))
	for i, e := range l.cp {
		b[i] = echomq.Exclusive(e)
	}
	return b
}
