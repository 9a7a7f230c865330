package partition

import (
	"context"
	"iter"
	"slices"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/projection"
)

// The partitioned stream reads as one stream: typed views
// (echomq.NewTyped(…).Over(s)) and projections take it as a source.
var (
	_ echomq.EventSource = (*Stream)(nil)
	_ projection.Source  = (*Stream)(nil)
)

// Scan iterates over the events of r in every partition (of every
// generation) merged in ascending entry-id order, holding one page per
// partition ([projection.Merge]; a tie between partitions goes to the
// lower partition, older generations first). Reverse is refused with an
// [*echomq.ArgumentError]: merge in ascending order, or use [Stream.Read]
// with Reverse for the newest events.
func (s *Stream) Scan(ctx context.Context, r echomq.Range, opts *echomq.ScanOpts) iter.Seq2[echomq.Event, error] {
	return func(yield func(echomq.Event, error) bool) {
		var mo *projection.MergeOpts
		if opts != nil {
			if opts.Reverse {
				yield(echomq.Event{}, &echomq.ArgumentError{Name: "reverse", Reason: "a partitioned stream scans in ascending order only"})
				return
			}
			mo = &projection.MergeOpts{PageSize: opts.PageSize}
		}
		for ev, err := range projection.Merge(ctx, r, s.srcs, mo) {
			if !yield(ev.Event, err) || err != nil {
				return
			}
		}
	}
}

// Read returns the events of r merged in entry-id order (newest first with
// Reverse), at most opts.Count of them when set: each partition's Read
// with the same options, merged, so a capped read costs Count entries per
// partition. Through a view ([Stream.Through]) it collects [Stream.Scan]
// instead. Errors are those of [echomq.Stream.Read], of the first
// partition that failed.
func (s *Stream) Read(ctx context.Context, r echomq.Range, opts *echomq.ReadOpts) ([]echomq.Event, error) {
	out := []echomq.Event{} // empty, not nil, as a stream's Read
	if s.view != nil {
		if err := r.Validate(); err != nil {
			return nil, err
		}
		for ev, err := range s.Scan(ctx, r, nil) {
			if err != nil {
				return nil, err
			}
			out = append(out, ev)
		}
	}
	for _, p := range s.all {
		if s.view != nil {
			break
		}
		evs, err := p.Read(ctx, r, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	rev := opts != nil && opts.Reverse
	slices.SortStableFunc(out, func(a, b echomq.Event) int {
		if rev {
			return b.Entry.Compare(a.Entry)
		}
		return a.Entry.Compare(b.Entry)
	})
	if opts != nil && opts.Count > 0 && len(out) > opts.Count {
		out = out[:opts.Count]
	}
	return out, nil
}
