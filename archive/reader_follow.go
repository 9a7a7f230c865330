package archive

import (
	"context"
	"iter"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
)

// Follow yields the merged log from opts.From (archived events first when
// From lies at or below W) and then new events as they are appended, in
// mint order and without a gap, until ctx ends (the iteration then ends
// without an error) or a read fails (yielded once). With From unbounded it
// yields only events appended after Follow starts. Every batch is read
// through the merged scan, so a follower that falls behind an archiver's
// trim reads the trimmed entries from the archive. The blocking waits
// (XREAD BLOCK) run on a connection of their own.
func (rd *Reader) Follow(ctx context.Context, opts *echomq.FollowOpts) iter.Seq2[echomq.Event, error] {
	return func(yield func(echomq.Event, error) bool) {
		o := echomq.FollowOpts{Block: 5 * time.Second, Count: 100}
		if opts != nil {
			if opts.Block < 0 || opts.Count < 0 {
				yield(echomq.Event{}, rd.wrap("follow", &echomq.ArgumentError{Name: "follow options", Reason: "block and count must not be negative"}))
				return
			}
			o.From, o.Block, o.Count = opts.From, or(opts.Block, o.Block), or(opts.Count, o.Count)
		}
		if rd.err != nil {
			yield(echomq.Event{}, rd.wrap("follow", rd.err))
			return
		}
		err := rd.follow(ctx, o, yield)
		if err != nil && ctx.Err() == nil {
			yield(echomq.Event{}, rd.wrap("follow", err))
		}
	}
}

func (rd *Reader) follow(ctx context.Context, o echomq.FollowOpts, yield func(echomq.Event, error) bool) error {
	st := &seam{rd: rd}
	from := o.From
	if from.IsUnbounded() {
		// After the newest entry there is: the live top, or W when the
		// live stream is gone and only the archive is left.
		if _, err := st.refresh(ctx); err != nil {
			return err
		}
		info, err := rd.stream.Info(ctx)
		if err != nil {
			return err
		}
		from = echomq.Exclusive(info.LastGenerated)
		if st.m.HasWatermark() {
			from = maxLower(from, echomq.After(st.m.Watermark))
		}
	}
	conn := clientconn.Of(rd.stream.Client())
	for {
		done, err := rd.scan(ctx, st, echomq.Span(from, echomq.Unbounded), o.Count, false, func(ev Event, _ error) bool {
			if !yield(ev.Event, nil) {
				return false
			}
			from = echomq.Exclusive(ev.Entry)
			return true
		})
		if err != nil || !done {
			return err
		}
		// Wait for anything above the cursor; what arrives is read by the
		// next merged scan, not from this reply.
		after := "0-0"
		if e, _ := from.EntryID(); !from.IsUnbounded() {
			after = e.String()
			if _, excl := from.EntryID(); !excl && (e.Ms > 0 || e.Seq > 0) {
				after = predecessor(e).String()
			}
		}
		if _, err := conn.XRead(ctx, rd.stream.Key(), after, 1, o.Block); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// predecessor returns the largest entry id below e (e > 0-0).
func predecessor(e echomq.EntryID) echomq.EntryID {
	if e.Seq > 0 {
		return echomq.EntryID{Ms: e.Ms, Seq: e.Seq - 1}
	}
	return echomq.EntryID{Ms: e.Ms - 1, Seq: ^uint64(0)}
}
