package dcb

import (
	"context"
	"fmt"

	"github.com/echomq/echomq"
)

// TypedEvent is a query's event decoded by a typed view.
type TypedEvent[T any] struct {
	Stream string
	echomq.TypedEvent[T]
}

// TypedAppend is one event of a typed decision: its stream, its value
// (encoded by the decision's view) and its tags.
type TypedAppend[T any] struct {
	Stream string
	Value  T
	Tags   []string
}

// ReadTyped returns the events matching q after position after, up to the
// head, decoded by view v (its codec and upcasters; the view's own stream
// does not matter), and the position the answer is complete through. An
// event that does not decode fails the read with its [*echomq.DecodeError].
func ReadTyped[T any](ctx context.Context, s *Store, v *echomq.Typed[T], q Query, after uint64) ([]TypedEvent[T], uint64, error) {
	evs, next, err := s.ReadAll(ctx, q, after)
	if err != nil {
		return nil, 0, err
	}
	out, err := decodeAll(v, evs)
	if err != nil {
		return nil, 0, opError("read", s.queue, err)
	}
	return out, next, nil
}

func decodeAll[T any](v *echomq.Typed[T], evs []Event) ([]TypedEvent[T], error) {
	if err := v.Err(); err != nil {
		return nil, err
	}
	out := make([]TypedEvent[T], len(evs))
	for i, ev := range evs {
		te, err := v.Decode(ev.Event)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ev.Stream, err)
		}
		out[i] = TypedEvent[T]{Stream: ev.Stream, TypedEvent: te}
	}
	return out, nil
}

// TypedDecision is a [Decision] over values of T: the events matching
// Query are decoded by View and folded by Apply from Init (nil: the zero
// S), and Decide returns the values to append, encoded by View.
type TypedDecision[T, S any] struct {
	Query  Query
	View   *echomq.Typed[T]
	Init   func() S
	Apply  func(state S, ev TypedEvent[T]) S
	Decide func(state S) ([]TypedAppend[T], error)
}

// DecideTyped is [Decide] for a [TypedDecision]: read, decode, fold,
// decide, encode, append on the condition that nothing matching the query
// was appended since, retry on conflict. An event that does not decode
// ends it with its [*echomq.DecodeError]; a value that does not encode
// with the codec's error.
func DecideTyped[T, S any](ctx context.Context, s *Store, d TypedDecision[T, S], opts *DecideOpts) ([]Appended, error) {
	if d.View == nil || d.Apply == nil {
		return nil, opError("decide", s.queue, &echomq.ArgumentError{Name: "decision", Reason: "nil View or Apply"})
	}
	return decide(ctx, s, d.Query, opts, func(evs []Event) ([]Append, error) {
		typed, err := decodeAll(d.View, evs)
		if err != nil {
			return nil, err
		}
		var state S
		if d.Init != nil {
			state = d.Init()
		}
		for _, te := range typed {
			state = d.Apply(state, te)
		}
		vals, err := d.Decide(state)
		if err != nil || len(vals) == 0 {
			return nil, err
		}
		out := make([]Append, len(vals))
		for i, a := range vals {
			f, err := d.View.Encode(a.Value)
			if err != nil {
				return nil, err
			}
			out[i] = Append{Stream: a.Stream, Fields: f, Tags: a.Tags}
		}
		return out, nil
	}, d.Decide == nil)
}
