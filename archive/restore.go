package archive

import (
	"context"
	"errors"
	"fmt"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
)

// RestoreOpts are per-call knobs of [Archiver.Restore]; nil means the
// defaults.
type RestoreOpts struct {
	// Range is the part of the source's merged log to restore. Defaults to
	// [echomq.All].
	Range echomq.Range
	// BatchSize is how many entries one pipelined round trip appends.
	// Defaults to 1000.
	BatchSize int
}

// RestoreResult says what a restore appended: Restored entries, the first
// and last of them. After a failure, the entries up to Last were appended;
// a restore of the range after Last resumes it.
type RestoreResult struct {
	Restored    int64
	First, Last echomq.ID
}

// Restore re-appends the merged log of the stream from (archive and live
// tail) over opts.Range into the stream to, under the original entry ids
// and fields, in order: an entry is rebuilt exactly as it was written. The
// destination must be new or deleted, or hold only entries below the first
// restored one; an entry id not above the destination's top fails with
// [echomq.ErrNonMonotonic] (nothing more is appended). Restoring into the
// source stream itself works once it was deleted; its next archive cycle
// trims the restored entries again, since they are archived.
//
// Errors: a bad name's [*echomq.NameError], [*echomq.RangeError],
// [*echomq.ArgumentError] for a negative batch size (all before I/O); the
// merged read's errors; the engine's errors.
func (a *Archiver) Restore(ctx context.Context, from StreamRef, to *echomq.Stream, opts *RestoreOpts) (RestoreResult, error) {
	var res RestoreResult
	o := RestoreOpts{Range: echomq.All, BatchSize: 1000}
	if opts != nil {
		if opts.BatchSize < 0 {
			return res, streamErr("restore", from.Queue, from.Stream, &echomq.ArgumentError{Name: "batch size", Reason: "must not be negative"})
		}
		o.Range, o.BatchSize = opts.Range, or(opts.BatchSize, 1000)
	}
	if err := checkStream(from.Queue, from.Stream); err != nil {
		return res, streamErr("restore", from.Queue, from.Stream, err)
	}
	if to == nil {
		return res, streamErr("restore", from.Queue, from.Stream, &echomq.ArgumentError{Name: "destination", Reason: "must not be nil"})
	}
	if err := to.Err(); err != nil {
		return res, streamErr("restore", from.Queue, from.Stream, err)
	}
	if err := o.Range.Validate(); err != nil {
		return res, streamErr("restore", from.Queue, from.Stream, err)
	}
	err := a.restore(ctx, from, to, o, &res)
	return res, streamErr("restore", from.Queue, from.Stream, err)
}

func (a *Archiver) restore(ctx context.Context, from StreamRef, to *echomq.Stream, o RestoreOpts, res *RestoreResult) error {
	conn := clientconn.Of(to.Client())
	prog := Progress{Op: "restore", Queue: from.Queue, Stream: from.Stream}
	ids := make([]string, 0, o.BatchSize)
	pairs := make([][]string, 0, o.BatchSize)
	batch := make([]echomq.ID, 0, o.BatchSize)
	flush := func() error {
		if len(ids) == 0 {
			return nil
		}
		for i, err := range conn.XAddMulti(ctx, to.Key(), ids, pairs) {
			if err != nil {
				if errors.Is(err, echomq.ErrNonMonotonic) {
					err = fmt.Errorf("entry %s is not above the destination's top: %w", ids[i], err)
				}
				return err
			}
			if res.Restored == 0 {
				res.First = batch[i]
			}
			res.Restored++
			res.Last = batch[i]
		}
		ids, pairs, batch = ids[:0], pairs[:0], batch[:0]
		prog.Done = res.Restored
		a.progress(prog)
		return nil
	}
	src := NewReader(a.store, a.client.Stream(from.Queue, from.Stream))
	for ev, err := range src.Events(ctx, o.Range, &echomq.ScanOpts{PageSize: o.BatchSize}) {
		if err != nil {
			return err
		}
		id, err := idOf(ev.Entry)
		if err != nil {
			return err
		}
		p := make([]string, 0, 2+len(ev.Fields))
		if !ev.ID.IsZero() {
			p = append(p, "id", ev.ID.String())
		}
		ids = append(ids, ev.Entry.String())
		pairs = append(pairs, append(p, ev.Fields...))
		batch = append(batch, id)
		if len(ids) == o.BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
