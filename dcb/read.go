package dcb

import (
	"context"
	"fmt"
	"iter"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/wire"
)

// Page sizes of [Store.Read].
const (
	DefaultLimit = 1000
	MaxLimit     = 10000
)

// ReadOpts are per-call knobs of [Store.Read]; nil means the defaults.
type ReadOpts struct {
	// Limit caps the page (1..MaxLimit). Defaults to DefaultLimit.
	Limit int
}

// Page is one page of a query read.
type Page struct {
	// Events match the query, in position order, all after the position
	// the read started from.
	Events []Event
	// Next is the position the following page starts after; the query is
	// complete through it: no matching event lies at or below it that the
	// page (or an earlier one) did not return. A decision conditions on it.
	Next uint64
	// Head is the queue's last position when the page was read.
	Head uint64
}

// More reports whether events matching the query may lie after the page:
// Next is below Head.
func (p *Page) More() bool { return p.Next < p.Head }

// budget is how many index members one source (item x type) of a read may
// examine per call, so that a sparse match over a large index set is read
// in bounded steps.
func budget(limit int) int { return 4*limit + 1024 }

// Read returns the events matching q with a position above after, in
// position order, one page of at most opts.Limit. An empty page with
// Next == Head means nothing more matches now. Errors: an
// [*echomq.ArgumentError] for a bad query or limit (before any I/O); a
// [*PositionError] for a position the index cannot answer for; engine
// errors as echomq's reads.
func (s *Store) Read(ctx context.Context, q Query, after uint64, opts *ReadOpts) (Page, error) {
	items, err := q.wire()
	if err != nil {
		return Page{}, opError("read", s.queue, err)
	}
	limit := DefaultLimit
	if opts != nil && opts.Limit != 0 {
		if opts.Limit < 0 || opts.Limit > MaxLimit {
			return Page{}, opError("read", s.queue, &echomq.ArgumentError{Name: "limit", Reason: fmt.Sprintf("%d is outside 1..%d", opts.Limit, MaxLimit)})
		}
		limit = opts.Limit
	}
	p, err := s.read(ctx, items, after, limit)
	return p, opError("read", s.queue, err)
}

func (s *Store) read(ctx context.Context, items []wire.DCBItem, after uint64, limit int) (Page, error) {
	rep, err := s.conn.DCBReadQuery(ctx, &wire.DCBReadReq{Keys: s.keys, After: after, Limit: limit, Budget: budget(limit), Query: items})
	if err != nil {
		return Page{}, err
	}
	if rep.Status == wire.DCBPosition {
		return Page{}, positionError(after, rep.Kind, rep.Stream, rep.Position)
	}
	p := Page{Next: rep.Next, Head: rep.Head, Events: make([]Event, 0, len(rep.Events))}
	for _, r := range rep.Events {
		ev, err := clientconn.DecodeEvent(r.Entry)
		if err != nil {
			return Page{}, err
		}
		p.Events = append(p.Events, Event{Stream: r.Stream, Event: ev.(echomq.Event)})
	}
	return p, nil
}

// All returns the events matching q after position after, up to the
// queue's head when each page was read, page by page; it stops at the
// first error. The position of the last event yielded (or the last page's
// Next, see [Store.ReadAll]) resumes it.
func (s *Store) All(ctx context.Context, q Query, after uint64) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		items, err := q.wire()
		if err != nil {
			yield(Event{}, opError("read", s.queue, err))
			return
		}
		for {
			p, err := s.read(ctx, items, after, DefaultLimit)
			if err != nil {
				yield(Event{}, opError("read", s.queue, err))
				return
			}
			for _, ev := range p.Events {
				if !yield(ev, nil) {
					return
				}
			}
			after = p.Next
			if !p.More() {
				return
			}
		}
	}
}

// ReadAll returns every event matching q after position after, up to the
// queue's head, and the position the answer is complete through: what a
// decision conditions its append on (see [Condition]).
func (s *Store) ReadAll(ctx context.Context, q Query, after uint64) ([]Event, uint64, error) {
	items, err := q.wire()
	if err != nil {
		return nil, 0, opError("read", s.queue, err)
	}
	var out []Event
	for {
		p, err := s.read(ctx, items, after, DefaultLimit)
		if err != nil {
			return nil, 0, opError("read", s.queue, err)
		}
		out = append(out, p.Events...)
		after = p.Next
		if !p.More() {
			return out, after, nil
		}
	}
}
