package dcb

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/wire"
)

// FollowOpts are per-call knobs of [Store.Follow]; nil means the defaults.
type FollowOpts struct {
	// Poll is how long the follower waits before it reads again after a
	// read found nothing new (10ms..1m). Defaults to 100ms.
	Poll time.Duration
	// Limit is the page size of each read (1..MaxLimit). Defaults to
	// DefaultLimit.
	Limit int
}

// Follow yields the events matching q with a position above after, in
// position order, and then those appended later, as they come, until ctx
// ends (then the iteration ends without an error), the loop body stops, or
// an error (yielded once) ends it. A follower that saves the Position of
// each event it has handled and resumes from it, after a crash, misses and
// repeats nothing: positions are a total order of the queue's tagged
// events, assigned in the script that writes them. Passing failures of the
// engine ([echomq.ErrUnavailable]) are retried every Poll.
func (s *Store) Follow(ctx context.Context, q Query, after uint64, opts *FollowOpts) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		items, poll, limit, err := followArgs(q, opts)
		if err != nil {
			yield(Event{}, opError("follow", s.queue, err))
			return
		}
		t := time.NewTimer(0)
		defer t.Stop()
		for {
			p, err := s.read(ctx, items, after, limit)
			switch {
			case ctx.Err() != nil:
				return
			case err != nil && wire.Transient(err):
				p = Page{Next: after, Head: after}
			case err != nil:
				yield(Event{}, opError("follow", s.queue, err))
				return
			}
			for _, ev := range p.Events {
				if !yield(ev, nil) {
					return
				}
			}
			progressed := p.Next > after
			after = p.Next
			if p.More() && progressed {
				continue
			}
			t.Reset(poll)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}
}

func followArgs(q Query, opts *FollowOpts) ([]wire.DCBItem, time.Duration, int, error) {
	items, err := q.wire()
	if err != nil {
		return nil, 0, 0, err
	}
	poll, limit := 100*time.Millisecond, DefaultLimit
	if opts != nil {
		if opts.Poll != 0 {
			if opts.Poll < 10*time.Millisecond || opts.Poll > time.Minute {
				return nil, 0, 0, &echomq.ArgumentError{Name: "poll", Reason: fmt.Sprintf("%v is outside 10ms..1m", opts.Poll)}
			}
			poll = opts.Poll
		}
		if opts.Limit != 0 {
			if opts.Limit < 0 || opts.Limit > MaxLimit {
				return nil, 0, 0, &echomq.ArgumentError{Name: "limit", Reason: fmt.Sprintf("%d is outside 1..%d", opts.Limit, MaxLimit)}
			}
			limit = opts.Limit
		}
	}
	return items, poll, limit, nil
}
