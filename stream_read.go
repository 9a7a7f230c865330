package echomq

import (
	"context"
	"iter"
	"strconv"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// Event is one entry read back: its branded id (the receipt recovered from
// the "id" field), its entry id (the wire position, equal to the receipt's
// image), and its payload without the "id" field, in stored order.
//
// An entry written by another program without a well-formed "id" field reads
// back with a zero ID and its fields untouched.
//
// A tagged event (AppendOpts.Tags, package dcb) also has its tags and its
// position in the queue, read from its "@tags" and "@pos" fields, which
// are not in Fields; an untagged event has none and position 0.
type Event struct {
	ID     ID
	Entry  EntryID
	Fields Fields
	// Tags are the event's tags ("key=value"), sorted; nil when untagged.
	Tags []string
	// Position is the event's position among the tagged events of its
	// queue (1, 2, …, across all its streams; see package dcb); 0 when
	// untagged.
	Position uint64
}

// Time returns the event's mint instant.
func (e Event) Time() time.Time { return e.Entry.Time() }

// ReadOpts are per-call knobs of the range reads; nil means the defaults.
type ReadOpts struct {
	// Count caps the result at the first Count entries of the range (the
	// oldest, or the newest when Reverse). Defaults to 0: no cap.
	Count int
	// Reverse returns newest first. Defaults to false.
	Reverse bool
}

func (o *ReadOpts) get() (count int64, rev bool, err error) {
	if o == nil {
		return 0, false, nil
	}
	if o.Count < 0 {
		return 0, false, &ArgumentError{Name: "count", Reason: "must not be negative"}
	}
	return int64(o.Count), o.Reverse, nil
}

// Read returns the events of r in mint order (XRANGE), or newest first with
// opts.Reverse (XREVRANGE). A missing stream reads as empty. Errors: the
// handle's [*NameError], [*RangeError] for an inverted range,
// [*ArgumentError] for a negative count (all before I/O), [ErrWrongType],
// [ErrClosed], context errors, [*ServerError], [*TransportError].
func (s *Stream) Read(ctx context.Context, r Range, opts *ReadOpts) ([]Event, error) {
	if len(s.c.hooks.read) > 0 {
		return s.readObserved(ctx, r, opts)
	}
	return s.readRange(ctx, r, opts)
}

func (s *Stream) readRange(ctx context.Context, r Range, opts *ReadOpts) ([]Event, error) {
	if err := s.ready(ctx); err != nil {
		return nil, opError("read", s.key, err)
	}
	count, rev, err := opts.get()
	if err != nil {
		return nil, opError("read", s.key, err)
	}
	if err := r.Validate(); err != nil {
		return nil, opError("read", s.key, err)
	}
	evs, err := s.read(ctx, r, count, rev)
	return evs, opError("read", s.key, err)
}

func (s *Stream) read(ctx context.Context, r Range, count int64, rev bool) ([]Event, error) {
	entries, err := s.c.conn.XRange(ctx, s.key, r.From.lower(), r.To.upper(), count, rev)
	if err != nil {
		return nil, err
	}
	return decodeEvents(entries)
}

// ReadLatest returns the newest n events, newest first.
func (s *Stream) readLatest(ctx context.Context, n int) ([]Event, error) {
	if n <= 0 {
		return nil, opError("read", s.key, &ArgumentError{Name: "count", Reason: "must be positive"})
	}
	return s.Read(ctx, All, &ReadOpts{Count: n, Reverse: true})
}

// ScanOpts are per-call knobs of [Stream.Scan]; nil means the defaults.
type ScanOpts struct {
	// PageSize is how many entries one round trip fetches; memory is bounded
	// by one page. Defaults to 1000.
	PageSize int
	// Reverse pages newest first. Defaults to false.
	Reverse bool
}

// Scan iterates over the events of r page by page, holding one page in
// memory. A failure is yielded once as the error and ends the iteration;
// stopping the loop early stops the paging.
func (s *Stream) Scan(ctx context.Context, r Range, opts *ScanOpts) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		page, rev := 1000, false
		if opts != nil {
			if opts.PageSize < 0 {
				yield(Event{}, opError("scan", s.key, &ArgumentError{Name: "page size", Reason: "must not be negative"}))
				return
			}
			if opts.PageSize > 0 {
				page = opts.PageSize
			}
			rev = opts.Reverse
		}
		if err := s.ready(ctx); err != nil {
			yield(Event{}, opError("scan", s.key, err))
			return
		}
		if err := r.Validate(); err != nil {
			yield(Event{}, opError("scan", s.key, err))
			return
		}
		for {
			evs, err := s.read(ctx, r, int64(page), rev)
			if err != nil {
				yield(Event{}, opError("scan", s.key, err))
				return
			}
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
			}
			if len(evs) < page {
				return
			}
			last := evs[len(evs)-1].Entry
			if rev {
				r.To = Exclusive(last)
			} else {
				r.From = Exclusive(last)
			}
		}
	}
}

// decodeEvents turns engine entries into events, recovering the receipt.
func decodeEvents(entries []wire.Entry) ([]Event, error) {
	evs := make([]Event, len(entries))
	for i := range entries {
		ev, err := decodeEvent(entries[i])
		if err != nil {
			return nil, err
		}
		evs[i] = ev
	}
	return evs, nil
}

func decodeEvent(e wire.Entry) (Event, error) {
	eid, err := ParseEntryID(e.ID)
	if err != nil {
		return Event{}, err
	}
	ev := Event{Entry: eid, Fields: Fields(e.Fields)}
	for i := 0; i+1 < len(e.Fields); i += 2 {
		if e.Fields[i] != reservedField {
			continue
		}
		id, err := ParseID(e.Fields[i+1])
		if err != nil {
			break // foreign entry: leave its fields as they are
		}
		ev.ID = id
		switch {
		case i == 0 && len(e.Fields) >= 6 && e.Fields[2] == posField && e.Fields[4] == tagsField:
			// A tagged event: the script wrote id, @pos, @tags first.
			ev.Position, _ = strconv.ParseUint(e.Fields[3], 10, 64)
			ev.Tags = keyspace.ParseTags(e.Fields[5])
			ev.Fields = Fields(e.Fields[6:])
		case i == 0:
			ev.Fields = Fields(e.Fields[2:])
		default:
			f := make(Fields, 0, len(e.Fields)-2)
			f = append(f, e.Fields[:i]...)
			f = append(f, e.Fields[i+2:]...)
			ev.Fields = f
		}
		break
	}
	return ev, nil
}
