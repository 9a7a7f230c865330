package echomq

import (
	"context"
	"iter"
	"time"
)

// FollowOpts are per-call knobs of [Stream.Follow]; nil means the defaults.
type FollowOpts struct {
	// From is where following starts. Defaults to [Unbounded]: only events
	// appended after Follow starts. A bound first replays the stored events
	// from it, then follows the tail without a gap.
	From Bound
	// Block is how long one blocking read waits before it is re-issued; it
	// bounds how late a cancelled context is noticed on engines that cannot
	// unblock a read. Defaults to 5s.
	Block time.Duration
	// Count caps the entries one read returns. Defaults to 100.
	Count int
}

// Follow yields events as they are appended, in mint order, until ctx ends
// (then the iteration ends without an error) or a read fails (yielded once).
// The blocking reads (XREAD BLOCK) run on a connection of their own, so a
// follower never delays appends.
func (s *Stream) Follow(ctx context.Context, opts *FollowOpts) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		o := FollowOpts{Block: 5 * time.Second, Count: 100}
		if opts != nil {
			o.From = opts.From
			if opts.Block > 0 {
				o.Block = opts.Block
			}
			if opts.Count > 0 {
				o.Count = opts.Count
			}
			if opts.Block < 0 || opts.Count < 0 {
				yield(Event{}, opError("follow", s.key, &ArgumentError{Name: "follow options", Reason: "block and count must not be negative"}))
				return
			}
		}
		if err := s.ready(ctx); err != nil {
			yield(Event{}, opError("follow", s.key, err))
			return
		}
		after, err := s.followStart(ctx, o.From, yield)
		if err != nil {
			if ctx.Err() == nil {
				yield(Event{}, opError("follow", s.key, err))
			}
			return
		}
		if after == nil {
			return // the consumer stopped during the replay
		}
		for {
			entries, err := s.c.conn.XRead(ctx, s.key, after.String(), int64(o.Count), o.Block)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				yield(Event{}, opError("follow", s.key, err))
				return
			}
			evs, err := decodeEvents(entries)
			if err != nil {
				yield(Event{}, opError("follow", s.key, err))
				return
			}
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
				e := ev.Entry
				after = &e
			}
		}
	}
}

// followStart replays from a bound, or finds the current top, and returns the
// entry id to follow after (nil when the consumer stopped).
func (s *Stream) followStart(ctx context.Context, from Bound, yield func(Event, error) bool) (*EntryID, error) {
	var after EntryID
	if from.IsUnbounded() {
		info, ok, err := s.c.conn.XInfoStream(ctx, s.key)
		if err != nil {
			return nil, err
		}
		if ok && info.LastGeneratedID != "" {
			if after, err = ParseEntryID(info.LastGeneratedID); err != nil {
				return nil, err
			}
		}
		return &after, nil
	}
	if e, excl := from.EntryID(); excl {
		after = e
	} else if e.Ms > 0 || e.Seq > 0 {
		after = predecessor(e)
	}
	for ev, err := range s.Scan(ctx, Range{From: from}, nil) {
		if err != nil {
			return nil, err
		}
		if !yield(ev, nil) {
			return nil, nil
		}
		after = ev.Entry
	}
	return &after, nil
}

// predecessor returns the largest entry id below e (e > 0-0).
func predecessor(e EntryID) EntryID {
	if e.Seq > 0 {
		return EntryID{Ms: e.Ms, Seq: e.Seq - 1}
	}
	return EntryID{Ms: e.Ms - 1, Seq: ^uint64(0)}
}
