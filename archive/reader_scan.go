package archive

import (
	"context"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
)

// seam is what a merged read knows of the archive: the manifest and the
// watermark cache value it was checked against.
//
// Why a live page is safe to yield: an archiver commits manifest M', then
// sets the cache to W', then trims at W'. A reader that read the cache (c),
// then the manifest (M), then a live page, then the cache again (still c)
// knows that no cache write happened between its two reads, so no trim
// past M's W happened before its page was read: the page has no hole. When
// the cache moved, the reader reloads the manifest and, if a new
// generation appeared, drops the page and reads on from its cursor through
// the new segments.
type seam struct {
	rd     *Reader
	m      *Manifest
	cache  string // the cache value m was checked against ("\x00" absent)
	loaded bool
}

func (st *seam) readCache(ctx context.Context) (string, error) {
	v, ok, err := clientconn.Of(st.rd.stream.Client()).Get(ctx, keyspace.ArchivedKey(st.rd.stream.Queue(), st.rd.stream.Name()))
	if !ok {
		v = "\x00"
	}
	return v, err
}

// refresh makes sure the manifest is current with the cache; it reports
// whether a new manifest generation was loaded.
func (st *seam) refresh(ctx context.Context) (bool, error) {
	c, err := st.readCache(ctx)
	if err != nil {
		return false, err
	}
	if st.loaded && c == st.cache {
		return false, nil
	}
	m, err := loadManifest(ctx, st.rd.store, st.rd.stream.Queue(), st.rd.stream.Name())
	if err != nil {
		return false, err
	}
	changed := st.loaded && m.Generation != st.m.Generation
	st.m, st.cache, st.loaded = m, c, true
	return changed, nil
}

// scan yields the merged events of r (validated) through yield, and
// reports whether the iteration ran to its end (false: the consumer
// stopped). It keeps st current as it goes.
func (rd *Reader) scan(ctx context.Context, st *seam, r echomq.Range, page int, rev bool, yield func(Event, error) bool) (bool, error) {
	if _, err := st.refresh(ctx); err != nil {
		return false, err
	}
	rem := r
	for {
		if empty(rem) {
			return true, nil
		}
		var w echomq.Bound // the archive's upper end; unbounded when nothing is archived
		if st.m.HasWatermark() {
			w = echomq.At(st.m.Watermark)
		}
		if !rev && st.m.HasWatermark() {
			done, err := rd.scanArchive(ctx, st.m, echomq.Span(rem.From, minUpper(rem.To, w)), false, &rem, yield)
			if !done || err != nil {
				return false, err
			}
			rem.From = maxLower(rem.From, echomq.After(st.m.Watermark))
		}
		live := rem
		if st.m.HasWatermark() {
			live.From = maxLower(rem.From, echomq.After(st.m.Watermark))
		}
		done, moved, err := rd.scanLive(ctx, st, live, page, rev, &rem, yield)
		if !done || err != nil {
			return false, err
		}
		if moved {
			continue // W moved under a live page: read on through the archive
		}
		if rev && st.m.HasWatermark() {
			return rd.scanArchive(ctx, st.m, echomq.Span(rem.From, minUpper(rem.To, w)), true, &rem, yield)
		}
		return true, nil
	}
}

// scanLive pages through the live range, checking each page against the
// cache before yielding it, and narrows rem past each event yielded. It
// reports moved when a new manifest generation appeared (the page was
// dropped).
func (rd *Reader) scanLive(ctx context.Context, st *seam, live echomq.Range, page int, rev bool, rem *echomq.Range, yield func(Event, error) bool) (done, moved bool, err error) {
	for !empty(live) {
		evs, err := rd.stream.Read(ctx, live, &echomq.ReadOpts{Count: page, Reverse: rev})
		if err != nil {
			return false, false, err
		}
		changed, err := st.refresh(ctx)
		if err != nil {
			return false, false, err
		}
		if changed {
			return true, true, nil
		}
		for _, ev := range evs {
			if !yield(Event{Event: ev}, nil) {
				return false, false, nil
			}
			advance(rem, ev.Entry, rev)
			advance(&live, ev.Entry, rev)
		}
		if len(evs) < page {
			return true, false, nil
		}
	}
	return true, false, nil
}

// scanArchive yields the archived events of ar, fetching only the segments
// that overlap it, and narrows rem past each event yielded.
func (rd *Reader) scanArchive(ctx context.Context, m *Manifest, ar echomq.Range, rev bool, rem *echomq.Range, yield func(Event, error) bool) (bool, error) {
	if empty(ar) {
		return true, nil
	}
	segs := m.Overlapping(ar)
	for k := range segs {
		seg := segs[k]
		if rev {
			seg = segs[len(segs)-1-k]
		}
		sf, err := loadSegment(ctx, rd.store, seg)
		if err != nil {
			return false, err
		}
		done, err := sf.scan(ar, rev, func(ev echomq.Event) bool {
			if !yield(Event{Event: ev, Archived: true}, nil) {
				return false
			}
			advance(rem, ev.Entry, rev)
			return true
		})
		if !done || err != nil {
			return false, err
		}
	}
	return true, nil
}

// advance narrows r past e: its lower end for a forward read, its upper
// end for a reverse one.
func advance(r *echomq.Range, e echomq.EntryID, rev bool) {
	if rev {
		r.To = echomq.Exclusive(e)
	} else {
		r.From = echomq.Exclusive(e)
	}
}

// empty reports whether no entry id lies in r.
func empty(r echomq.Range) bool {
	if r.From.IsUnbounded() || r.To.IsUnbounded() {
		return false
	}
	a, ax := r.From.EntryID()
	b, bx := r.To.EntryID()
	c := a.Compare(b)
	if c > 0 || c == 0 && (ax || bx) {
		return true
	}
	if ax && bx { // (a, b) with b the successor of a
		if n, ok := a.Next(); ok && n == b {
			return true
		}
	}
	return false
}

// maxLower returns the tighter of two lower bounds.
func maxLower(a, b echomq.Bound) echomq.Bound {
	if a.IsUnbounded() {
		return b
	}
	if b.IsUnbounded() {
		return a
	}
	ae, ax := a.EntryID()
	be, bx := b.EntryID()
	if c := ae.Compare(be); c > 0 || c == 0 && ax && !bx {
		return a
	}
	return b
}

// minUpper returns the tighter of two upper bounds.
func minUpper(a, b echomq.Bound) echomq.Bound {
	if a.IsUnbounded() {
		return b
	}
	if b.IsUnbounded() {
		return a
	}
	ae, ax := a.EntryID()
	be, bx := b.EntryID()
	if c := ae.Compare(be); c < 0 || c == 0 && ax && !bx {
		return a
	}
	return b
}
