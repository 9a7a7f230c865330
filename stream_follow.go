package echomq

import (
	"context"
	"iter"
	"log/slog"
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
	// Logger receives the follower's outage and recovery lines. Defaults
	// to Config.Logger; a component that reports outages itself (as
	// projection.Live does) passes one that discards them.
	Logger *slog.Logger
}

// Follow yields events as they are appended, in mint order, until ctx ends
// (then the iteration ends without an error), the loop body stops, or a
// permanent error (yielded once) ends it. The blocking reads (XREAD BLOCK)
// run on a connection of their own, so a follower never delays appends.
//
// Transport failures do not end it. When a read fails with an error
// matching [ErrUnavailable] (the engine restarted, is unreachable, hung past
// Config.CallTimeout, or is loading), Follow yields that error once for the
// outage (a zero Event with it) and, if the loop goes on, retries by itself
// with a backoff from 100ms to 2s, logging the outage and its end once each
// on FollowOpts.Logger ("echomq: follow: engine unavailable; retrying" and
// "echomq: follow: engine back"); when the engine answers again it resumes from its
// position, right after the last event it yielded, so no event is skipped
// or repeated. A loop that wants to give up on an outage breaks on
// errors.Is(err, ErrUnavailable). A closed client ends it with [ErrClosed].
func (s *Stream) Follow(ctx context.Context, opts *FollowOpts) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		o := FollowOpts{Block: 5 * time.Second, Count: 100, Logger: s.c.cfg.Logger}
		if opts != nil {
			o.From = opts.From
			if opts.Logger != nil {
				o.Logger = opts.Logger
			}
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
		out := newFollowOutage[Event](s.c, o.Logger, "echomq: follow", "stream", s.key)
		after, stopped := s.followStart(ctx, o.From, out, yield)
		if stopped {
			return
		}
		for {
			entries, err := s.c.conn.XRead(ctx, s.key, after.String(), int64(o.Count), o.Block)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				if !out.failed(ctx, "read", err, yield) {
					return
				}
				continue
			}
			out.ok()
			evs, err := decodeEvents(entries)
			if err != nil {
				yield(Event{}, opError("follow", s.key, err))
				return
			}
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
				after = ev.Entry
			}
		}
	}
}

// followStart replays from a bound, or finds the current top, and returns
// the entry id to follow after; stopped reports that the iteration ended
// (the loop body stopped, ctx ended, or a permanent error was yielded). A
// transient failure of the replay is not retried by the replay: following
// from the last replayed entry delivers the rest of it, since a read after
// an id returns the stored entries above it at once.
func (s *Stream) followStart(ctx context.Context, from Bound, out *followOutage[Event], yield func(Event, error) bool) (after EntryID, stopped bool) {
	if from.IsUnbounded() {
		for {
			info, ok, err := s.c.conn.XInfoStream(ctx, s.key)
			if ctx.Err() != nil {
				return after, true
			}
			if err != nil {
				if !out.failed(ctx, "top", err, yield) {
					return after, true
				}
				continue
			}
			out.ok()
			if ok && info.LastGeneratedID != "" {
				if after, err = ParseEntryID(info.LastGeneratedID); err != nil {
					yield(Event{}, opError("follow", s.key, err))
					return after, true
				}
			}
			return after, false
		}
	}
	if e, excl := from.EntryID(); excl {
		after = e
	} else if e.Ms > 0 || e.Seq > 0 {
		after = predecessor(e)
	}
	for ev, err := range s.Scan(ctx, Range{From: from}, nil) {
		if ctx.Err() != nil {
			return after, true
		}
		if err != nil {
			if !out.failed(ctx, "replay", err, yield) {
				return after, true
			}
			return after, false // follow on from the last replayed entry
		}
		if !yield(ev, nil) {
			return after, true
		}
		after = ev.Entry
	}
	return after, false
}

// predecessor returns the largest entry id below e (e > 0-0).
func predecessor(e EntryID) EntryID {
	if e.Seq > 0 {
		return EntryID{Ms: e.Ms, Seq: e.Seq - 1}
	}
	return EntryID{Ms: e.Ms - 1, Seq: ^uint64(0)}
}
