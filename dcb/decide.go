package dcb

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/projection"
)

// DefaultAttempts is how many times [Decide] tries by default.
const DefaultAttempts = 8

// DecideOpts are per-call knobs of [Decide] and [DecideTyped]; nil means
// the defaults.
type DecideOpts struct {
	// Attempts bounds the tries (1..100): after that many conflicts the
	// last [*ConflictError] is returned. Defaults to DefaultAttempts.
	Attempts int
}

func (o *DecideOpts) attempts() (int, error) {
	if o == nil || o.Attempts == 0 {
		return DefaultAttempts, nil
	}
	if o.Attempts < 0 || o.Attempts > 100 {
		return 0, &echomq.ArgumentError{Name: "attempts", Reason: fmt.Sprintf("%d is outside 1..100", o.Attempts)}
	}
	return o.Attempts, nil
}

// Decision is a rule decided over a query: the events matching Query fold
// into a state with Fold (a projection; its Init gives a fresh state per
// attempt), and Decide turns the state into the events to append (none:
// nothing to do) or an error that refuses the command.
type Decision[S any] struct {
	Query  Query
	Fold   projection.Projection[S]
	Decide func(state S) ([]Append, error)
}

// Decide reads the events matching d.Query, folds them, decides and
// appends the decided events on the condition that no event matching the
// query was appended since the read; when one was, it reads, folds and
// decides again, at most opts.Attempts times. It returns the appended
// events (nil when the decision was to append nothing), the error of
// d.Decide as it is, or, after the last attempt, the [*ConflictError]
// (matching echomq.ErrConflict). Other errors as [Store.ReadAll] and
// [Store.Append].
func Decide[S any](ctx context.Context, s *Store, d Decision[S], opts *DecideOpts) ([]Appended, error) {
	if err := d.Fold.Validate(); err != nil {
		return nil, opError("decide", s.queue, err)
	}
	return decide(ctx, s, d.Query, opts, func(evs []Event) ([]Append, error) {
		state, err := projection.FoldSeq(d.Fold, projectionEvents(evs))
		if err != nil {
			return nil, err
		}
		return d.Decide(state)
	}, d.Decide == nil)
}

// decide is the loop of Decide and DecideTyped: decideOn folds the events
// read and decides.
func decide(ctx context.Context, s *Store, q Query, opts *DecideOpts, decideOn func([]Event) ([]Append, error), nilDecide bool) ([]Appended, error) {
	attempts, err := opts.attempts()
	if err != nil {
		return nil, opError("decide", s.queue, err)
	}
	if nilDecide {
		return nil, opError("decide", s.queue, &echomq.ArgumentError{Name: "decision", Reason: "nil Decide function"})
	}
	if err := q.Validate(); err != nil {
		return nil, opError("decide", s.queue, err)
	}
	for try := 1; ; try++ {
		evs, after, err := s.ReadAll(ctx, q, 0)
		if err != nil {
			return nil, err
		}
		out, err := decideOn(evs)
		if err != nil || len(out) == 0 {
			return nil, err
		}
		got, err := s.Append(ctx, out, &Condition{Query: q, After: after})
		if err == nil || try >= attempts || !errors.Is(err, echomq.ErrConflict) {
			return got, err
		}
	}
}

// projectionEvents turns query events into the events a projection folds.
func projectionEvents(evs []Event) iter.Seq2[projection.Event, error] {
	return func(yield func(projection.Event, error) bool) {
		for i := range evs {
			if !yield(projection.Event{Event: evs[i].Event, Stream: evs[i].Stream}, nil) {
				return
			}
		}
	}
}

// Events returns the events matching q after position after, up to the
// head, as the events a projection folds (projection.FoldSeq): a
// projection over a query.
func (s *Store) Events(ctx context.Context, q Query, after uint64) iter.Seq2[projection.Event, error] {
	return func(yield func(projection.Event, error) bool) {
		for ev, err := range s.All(ctx, q, after) {
			if !yield(projection.Event{Event: ev.Event, Stream: ev.Stream}, err) || err != nil {
				return
			}
		}
	}
}
