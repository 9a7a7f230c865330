package archive

import (
	"context"
	"iter"

	"github.com/echomq/echomq"
)

// Event is one event of a merged read: the stored event and whether it
// came from an archive segment (Archived) or from the live stream.
type Event struct {
	echomq.Event
	Archived bool
}

// Reader reads one stream's archive and live tail as one ordered log:
// the segments overlapping the requested range (found through the
// manifest's id index, so only those are fetched), then the live stream
// from (W, with no gap and no overlap, even while an archiver folds and
// trims the stream concurrently (a live page is checked against the
// watermark cache and re-read through the archive when W moved under it).
//
// Reader has the method set of *echomq.Stream that projections read
// through (Key, Scan, Follow), so projection.Fold and live projections
// fold across the archive seam unchanged. A Reader is cheap and safe for
// concurrent use.
type Reader struct {
	stream *echomq.Stream
	store  Store
	err    error
}

// NewReader returns the merged reader of stream's archive in store. A nil
// store or stream, or a stream handle made from a bad name, makes every
// read return the error (see [Reader.Err]).
func NewReader(store Store, stream *echomq.Stream) *Reader {
	rd := &Reader{stream: stream, store: store}
	switch {
	case stream == nil:
		rd.err = &echomq.ArgumentError{Name: "stream", Reason: "must not be nil"}
	case store == nil:
		rd.err = &echomq.ArgumentError{Name: "store", Reason: "must not be nil"}
	default:
		rd.err = stream.Err()
	}
	return rd
}

// Reader returns the merged reader of the stream q/name in the archiver's
// store.
func (a *Archiver) Reader(q, name string) *Reader {
	return NewReader(a.store, a.client.Stream(q, name))
}

// Err returns the error every read of a badly made reader returns, or nil.
func (rd *Reader) Err() error { return rd.err }

// Key returns the live stream's key, so a projection's checkpoints are the
// same whether it reads the stream or its merged log.
func (rd *Reader) Key() string {
	if rd.stream == nil {
		return ""
	}
	return rd.stream.Key()
}

// Name returns the stream name.
func (rd *Reader) Name() string {
	if rd.stream == nil {
		return ""
	}
	return rd.stream.Name()
}

// Queue returns the queue name.
func (rd *Reader) Queue() string {
	if rd.stream == nil {
		return ""
	}
	return rd.stream.Queue()
}

// Client returns the live stream's client (projections read "now" from its
// clock).
func (rd *Reader) Client() *echomq.Client {
	if rd.stream == nil {
		return nil
	}
	return rd.stream.Client()
}

// Stream returns the live stream.
func (rd *Reader) Stream() *echomq.Stream { return rd.stream }

// Read returns the merged events of r in mint order, or newest first with
// opts.Reverse, at most opts.Count when set. Errors: [*echomq.RangeError]
// for an inverted range and [*echomq.ArgumentError] for a negative count
// (before any I/O); the reader's [Reader.Err]; the store's errors
// ([*StoreError], an error matching [ErrCorrupt]); the engine's errors.
func (rd *Reader) Read(ctx context.Context, r echomq.Range, opts *echomq.ReadOpts) ([]Event, error) {
	so := &echomq.ScanOpts{}
	limit := 0
	if opts != nil {
		if opts.Count < 0 {
			return nil, rd.wrap("read", &echomq.ArgumentError{Name: "count", Reason: "must not be negative"})
		}
		so.Reverse, limit = opts.Reverse, opts.Count
		if limit > 0 && limit < 1000 {
			so.PageSize = limit
		}
	}
	var out []Event
	for ev, err := range rd.Events(ctx, r, so) {
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// Scan iterates over the merged events of r page by page, as
// [echomq.Stream.Scan] does over the live stream (the projection reader
// interface); [Reader.Events] says which events were archived. Memory is
// bounded by one row group of a segment or one live page.
func (rd *Reader) Scan(ctx context.Context, r echomq.Range, opts *echomq.ScanOpts) iter.Seq2[echomq.Event, error] {
	return func(yield func(echomq.Event, error) bool) {
		for ev, err := range rd.Events(ctx, r, opts) {
			if !yield(ev.Event, err) || err != nil {
				return
			}
		}
	}
}

// Events is [Reader.Scan] yielding [Event]s, which say whether each came
// from the archive. A failure is yielded once and ends the iteration.
func (rd *Reader) Events(ctx context.Context, r echomq.Range, opts *echomq.ScanOpts) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		page, rev := 1000, false
		if opts != nil {
			if opts.PageSize < 0 {
				yield(Event{}, rd.wrap("scan", &echomq.ArgumentError{Name: "page size", Reason: "must not be negative"}))
				return
			}
			page, rev = or(opts.PageSize, 1000), opts.Reverse
		}
		if rd.err != nil {
			yield(Event{}, rd.wrap("scan", rd.err))
			return
		}
		if err := r.Validate(); err != nil {
			yield(Event{}, rd.wrap("scan", err))
			return
		}
		st := &seam{rd: rd}
		if _, err := rd.scan(ctx, st, r, page, rev, yield); err != nil {
			yield(Event{}, rd.wrap("scan", err))
		}
	}
}

func (rd *Reader) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return &echomq.OpError{Op: "merged " + op, Key: rd.Key(), Err: err}
}
