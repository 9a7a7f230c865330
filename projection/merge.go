package projection

import (
	"context"
	"iter"

	"github.com/echomq/echomq"
)

// MergeOpts are per-call knobs of [Merge]; nil means the defaults.
type MergeOpts struct {
	// PageSize is how many entries one read of one stream fetches; memory
	// is bounded by one page per stream. Defaults to 1000.
	PageSize int
}

const defaultPageSize = 1000

func (o *MergeOpts) pageSize() (int, error) {
	if o == nil || o.PageSize == 0 {
		return defaultPageSize, nil
	}
	if o.PageSize < 0 {
		return 0, argError("page size", "must not be negative")
	}
	return o.PageSize, nil
}

// Merge fans in the events of r from several streams as one sequence in
// ascending entry id order: a k-way merge of one paging scan per stream,
// holding one page per stream in memory. Within one stream entry ids are
// unique; two streams can hold the same entry id (the same EVT id appended to
// both), and such a tie is broken by the order of srcs: the earlier source
// first. The sequence is therefore the same whatever the page size.
//
// Bad input is yielded once as the error before any I/O: an
// [*echomq.ArgumentError] for no sources, a nil source, a stream given twice
// or a negative page size, a source's [*echomq.NameError], an
// [*echomq.RangeError] for an inverted range. A read failure is yielded once
// and ends the sequence.
func Merge(ctx context.Context, r echomq.Range, srcs []Source, opts *MergeOpts) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		page, err := opts.pageSize()
		if err == nil {
			err = r.Validate()
		}
		var s sources
		if err == nil {
			s, err = checkSources(srcs)
		}
		if err != nil {
			yield(Event{}, err)
			return
		}
		ranges := make([]echomq.Range, len(srcs))
		for i := range ranges {
			ranges[i] = r
		}
		merge(ctx, s, ranges, page)(yield)
	}
}

// merge is Merge over checked sources, one range per source.
func merge(ctx context.Context, s sources, ranges []echomq.Range, page int) iter.Seq2[Event, error] {
	opts := &echomq.ScanOpts{PageSize: page}
	if len(s.list) == 1 {
		return func(yield func(Event, error) bool) {
			for ev, err := range s.list[0].Scan(ctx, ranges[0], opts) {
				if !yield(Event{Event: ev, Stream: s.names[0]}, err) || err != nil {
					return
				}
			}
		}
	}
	return func(yield func(Event, error) bool) {
		type head struct {
			ev   echomq.Event
			next func() (echomq.Event, error, bool)
		}
		heads := make([]head, 0, len(s.list))
		idx := make([]int, 0, len(s.list)) // source index of heads[i]
		for i, src := range s.list {
			next, stop := iter.Pull2(src.Scan(ctx, ranges[i], opts))
			defer stop()
			ev, err, ok := next()
			if err != nil {
				yield(Event{}, err)
				return
			}
			if ok {
				heads = append(heads, head{ev: ev, next: next})
				idx = append(idx, i)
			}
		}
		for len(heads) > 0 {
			// The smallest head; ties go to the earlier source, which sits
			// earlier in heads because heads keep source order. A linear
			// scan: fan-ins are a handful of streams.
			m := 0
			for j := 1; j < len(heads); j++ {
				if heads[j].ev.Entry.Compare(heads[m].ev.Entry) < 0 {
					m = j
				}
			}
			if !yield(Event{Event: heads[m].ev, Stream: s.names[idx[m]], src: idx[m]}, nil) {
				return
			}
			ev, err, ok := heads[m].next()
			switch {
			case err != nil:
				yield(Event{}, err)
				return
			case ok:
				heads[m].ev = ev
			default:
				heads = append(heads[:m], heads[m+1:]...)
				idx = append(idx[:m], idx[m+1:]...)
			}
		}
	}
}
