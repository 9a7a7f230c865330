package echomq

import (
	"context"
	"fmt"
)

// ReplayOpts say where [Replay] sends the events of a range. Exactly one of
// Handle and Into is set.
type ReplayOpts struct {
	// Handle is called with each event, oldest first; an error stops the
	// replay and is returned, with the count of events handled before it.
	Handle func(ctx context.Context, ev Event) error
	// Into appends each event's fields to this stream (a new id each, the
	// payload unchanged). Each append carries the idempotency key
	// "replay:<source key>:<original id>", so running the same replay again
	// within Config.DedupeWindow appends nothing twice.
	Into *Stream
	// PageSize is how many events one read fetches. Defaults to 1000.
	PageSize int
}

// ReplayResult is what a replay did.
type ReplayResult struct {
	// Events is how many events were handled or appended (repeats of an
	// earlier replay into the same stream included: they are answered with
	// their first receipt and write nothing).
	Events int64
	// First and Last are the entry ids of the first and last event read.
	First, Last EntryID
}

// Replay reads the events of r from src — a [*Stream], or the archive's
// merged reader (archive.Reader) to cover archived history and the live
// tail as one log, such as a time window [Window](t0, t1) — and hands them
// to opts.Handle or appends them to opts.Into, oldest first.
//
// Errors, before any I/O: an [*ArgumentError] for a nil source, neither or
// both of Handle and Into, or a negative page size; an [*RangeError] for an
// inverted range; the target stream's [*NameError]. Then the source's read
// errors, the handler's error, or the target's append errors, returned
// with the result so far. Nil opts name neither Handle nor Into, which is
// refused like an empty ReplayOpts.
func Replay(ctx context.Context, src EventSource, r Range, opts *ReplayOpts) (ReplayResult, error) {
	var res ReplayResult
	if opts == nil {
		opts = &ReplayOpts{}
	}
	if err := opts.check(src, r); err != nil {
		return res, opError("replay", "", err)
	}
	srcKey := "source"
	if k, ok := src.(interface{ Key() string }); ok {
		srcKey = k.Key()
	}
	for ev, err := range src.Scan(ctx, r, &ScanOpts{PageSize: opts.PageSize}) {
		if err != nil {
			return res, err
		}
		if opts.Handle != nil {
			err = opts.Handle(ctx, ev)
		} else {
			_, err = opts.Into.Append(ctx, ev.Fields, &AppendOpts{Key: replayKey(srcKey, ev)})
		}
		if err != nil {
			return res, opError("replay", srcKey, fmt.Errorf("event %s: %w", ev.Entry, err))
		}
		if res.Events == 0 {
			res.First = ev.Entry
		}
		res.Events++
		res.Last = ev.Entry
	}
	return res, nil
}

func (o *ReplayOpts) check(src EventSource, r Range) error {
	switch {
	case src == nil:
		return &ArgumentError{Name: "source", Reason: "must not be nil"}
	case (o.Handle == nil) == (o.Into == nil):
		return &ArgumentError{Name: "replay target", Reason: "set exactly one of Handle and Into"}
	case o.PageSize < 0:
		return &ArgumentError{Name: "page size", Reason: "must not be negative"}
	}
	if e, ok := src.(interface{ Err() error }); ok && e.Err() != nil {
		return e.Err()
	}
	if o.Into != nil && o.Into.Err() != nil {
		return o.Into.Err()
	}
	return r.Validate()
}

// replayKey is the idempotency key of one replayed event: the source and
// the original's identity, within the key's 256 bytes.
func replayKey(srcKey string, ev Event) string {
	id := ev.Entry.String()
	if !ev.ID.IsZero() {
		id = ev.ID.String()
	}
	k := "replay:" + srcKey + ":" + id
	if len(k) > 256 {
		k = k[len(k)-256:]
	}
	return k
}
