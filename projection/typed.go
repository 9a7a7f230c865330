package projection

import (
	"context"
	"iter"
	"sync"
	"time"

	"github.com/echomq/echomq"
)

// Decoder turns stored events into values of T, upcasting old schema
// versions: *echomq.Typed[T] is one.
type Decoder[T any] interface {
	Decode(ev echomq.Event) (echomq.TypedEvent[T], error)
}

// Typed folds values of T instead of string pairs. Wrap each source with
// [Typed.Source] (a live stream, or an archive.Reader for archived history:
// the same upcasters run on both, so old and new versions fold alike) and
// build Apply with [TypedApply]:
//
//	tv := projection.NewTyped(echomq.NewTyped[Opened](stream, nil, opts))
//	p := projection.Projection[int]{Apply: projection.TypedApply(tv, func(n int, ev projection.Event, v Opened) int { return n + v.Seats })}
//	n, err := projection.Fold(ctx, projection.All, p, tv.Source(reader))
//
// An event that does not decode ends a fold (or stops a live projection)
// with its [*echomq.DecodeError], matching [echomq.ErrDecode]: a
// projection never skips a fact silently. A Typed is safe for concurrent
// use and may serve several projections.
type Typed[T any] struct {
	dec Decoder[T]

	mu   sync.Mutex
	vals map[string]echomq.TypedEvent[T] // decoded by a source, not applied yet
}

// NewTyped returns the typed adapter of dec.
func NewTyped[T any](dec Decoder[T]) *Typed[T] {
	return &Typed[T]{dec: dec, vals: map[string]echomq.TypedEvent[T]{}}
}

func cacheKey(stream string, e echomq.EntryID) string { return stream + "\x00" + e.String() }

// Source returns src decoding as it reads: each event is decoded once, and
// its value kept for the Apply made by [TypedApply]; one that does not
// decode is yielded as the read error it is.
func (t *Typed[T]) Source(src Source) Source { return &typedSource[T]{t: t, src: src} }

// TypedApply returns the Apply of a [Projection] that folds decoded values:
// apply gets the event and its value. An event that reaches it without
// having come through a [Typed.Source] is decoded there; if it does not
// decode, the state is returned unchanged (such an event cannot reach a
// fold over typed sources, which end with the decode error first).
func TypedApply[T, S any](t *Typed[T], apply func(state S, ev Event, v T) S) func(S, Event) S {
	return func(state S, ev Event) S {
		k := cacheKey(ev.Stream, ev.Entry)
		t.mu.Lock()
		te, ok := t.vals[k]
		delete(t.vals, k)
		t.mu.Unlock()
		if !ok {
			var err error
			if te, err = t.dec.Decode(ev.Event); err != nil {
				return state
			}
		}
		return apply(state, ev, te.Value)
	}
}

type typedSource[T any] struct {
	t   *Typed[T]
	src Source
}

func (s *typedSource[T]) Key() string { return s.src.Key() }

// Name is the name events of this source carry, as checkSources sees it.
func (s *typedSource[T]) Name() string {
	if n, ok := s.src.(interface{ Name() string }); ok && n.Name() != "" {
		return n.Name()
	}
	return s.src.Key()
}

func (s *typedSource[T]) Err() error {
	if e, ok := s.src.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// Now is the inner source's clock, for windows relative to now.
func (s *typedSource[T]) Now() time.Time { return clockOf([]Source{s.src})() }

func (s *typedSource[T]) Scan(ctx context.Context, r echomq.Range, opts *echomq.ScanOpts) iter.Seq2[echomq.Event, error] {
	return s.decode(s.src.Scan(ctx, r, opts))
}

func (s *typedSource[T]) Follow(ctx context.Context, opts *echomq.FollowOpts) iter.Seq2[echomq.Event, error] {
	return s.decode(s.src.Follow(ctx, opts))
}

func (s *typedSource[T]) decode(seq iter.Seq2[echomq.Event, error]) iter.Seq2[echomq.Event, error] {
	name := s.Name()
	return func(yield func(echomq.Event, error) bool) {
		for ev, err := range seq {
			if err == nil {
				var te echomq.TypedEvent[T]
				if te, err = s.t.dec.Decode(ev); err == nil {
					s.t.mu.Lock()
					s.t.vals[cacheKey(name, ev.Entry)] = te
					s.t.mu.Unlock()
				}
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}
