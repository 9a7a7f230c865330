package projection

import (
	"context"
	"iter"

	"github.com/echomq/echomq"
)

// Fold folds the events of window w from one stream, or from several merged
// by entry id (see [Merge] for the order), and returns the final state:
// p.Init() with p.Apply applied to each event in order. Nothing is written.
//
// Errors, all before any I/O: an [*echomq.ArgumentError] for a nil Apply,
// bad arguments to a ready-made fold, no sources, a nil source, a stream
// given twice, or a Last window that is not positive; a source's
// [*echomq.NameError]; an [*echomq.RangeError] for an inverted window. A
// read failure ends the fold with the source's error (wrapped in an
// [*echomq.OpError] naming the fold).
func Fold[S any](ctx context.Context, w Window, p Projection[S], srcs ...Source) (S, error) {
	var zero S
	if err := p.Validate(); err != nil {
		return zero, opError("fold", p.Name, err)
	}
	s, err := checkSources(srcs)
	if err != nil {
		return zero, opError("fold", p.Name, err)
	}
	r, err := w.resolve(srcs)
	if err != nil {
		return zero, opError("fold", p.Name, err)
	}
	ranges := make([]echomq.Range, len(srcs))
	for i := range ranges {
		ranges[i] = r
	}
	return FoldSeq(p, merge(ctx, s, ranges, defaultPageSize))
}

// FoldSeq folds a sequence of events already in order (a [Merge], events in
// memory, a custom reader) and returns the final state. The first error the
// sequence yields ends the fold and is returned (wrapped in an
// [*echomq.OpError] naming the fold) with the zero state. A nil Apply
// returns an [*echomq.ArgumentError].
func FoldSeq[S any](p Projection[S], seq iter.Seq2[Event, error]) (S, error) {
	var zero S
	if err := p.Validate(); err != nil {
		return zero, opError("fold", p.Name, err)
	}
	state, apply := p.init(), p.Apply
	for ev, err := range seq {
		if err != nil {
			return zero, opError("fold", p.Name, err)
		}
		state = apply(state, ev)
	}
	return state, nil
}

// Events returns a sequence over events held in memory, for [FoldSeq].
func Events(evs []Event) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for i := range evs {
			if !yield(evs[i], nil) {
				return
			}
		}
	}
}
