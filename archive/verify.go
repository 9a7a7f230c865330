package archive

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/echomq/echomq"
)

// VerifyResult is what a scrub of one stream's archive found.
type VerifyResult struct {
	Stream StreamRef
	// Manifest is the manifest's problem (an error matching [ErrCorrupt]),
	// or nil. When set, no segment could be checked.
	Manifest   error
	Generation uint64
	// Segments, Entries and Bytes count what the manifest names.
	Segments int
	Entries  int64
	Bytes    int64
	// Unchecksummed counts segments a format 1 manifest committed without
	// a checksum: they were decoded in full and found consistent, but a
	// change that still decodes cannot be told from the original.
	Unchecksummed int
	// Bad lists every segment that failed, in id order.
	Bad []BadSegment
}

// BadSegment is a segment a scrub found unusable. Segment says exactly
// which entries are gone if it is quarantined: Count entries with ids
// First..Last.
type BadSegment struct {
	Segment Segment
	Err     error // matches [ErrCorrupt]
}

// OK reports whether the manifest and every segment passed.
func (r VerifyResult) OK() bool { return r.Manifest == nil && len(r.Bad) == 0 }

// Err returns nil when r is OK, else a [*CorruptError] naming the stream
// and the first problem, with the count of bad segments.
func (r VerifyResult) Err() error {
	switch {
	case r.Manifest != nil:
		return r.Manifest
	case len(r.Bad) == 1:
		return r.Bad[0].Err
	case len(r.Bad) > 1:
		return &CorruptError{Name: r.Stream.String(), Reason: fmt.Sprintf("%d bad segments, the first: %v", len(r.Bad), r.Bad[0].Err)}
	}
	return nil
}

// Verify scrubs the archive of the stream q/name in store: it loads the
// manifest (its checksum is checked), then fetches every segment it names
// and checks its size and SHA-256 and decodes it in full, checking each
// row against the manifest (count, id span, order). It needs no engine and
// changes nothing. Data problems are reported in the result, every one of
// them; the error is for what stops the scrub: a bad name (before any
// I/O), the store failing ([*StoreError]), the context.
func Verify(ctx context.Context, store Store, q, name string) (VerifyResult, error) {
	res := VerifyResult{Stream: StreamRef{Queue: q, Stream: name}}
	if err := checkStream(q, name); err != nil {
		return res, err
	}
	if store == nil {
		return res, &echomq.ArgumentError{Name: "store", Reason: "must not be nil"}
	}
	m, err := loadManifest(ctx, store, q, name)
	if errors.Is(err, ErrCorrupt) {
		res.Manifest = err
		return res, nil
	}
	if err != nil {
		return res, err
	}
	res.Generation, res.Segments, res.Entries, res.Bytes = m.Generation, len(m.Segments), m.Entries, m.Bytes
	for _, seg := range m.Segments {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		err := verifySegment(ctx, store, seg)
		if _, ok := errors.AsType[*StoreError](err); ok {
			return res, err
		}
		if err != nil {
			res.Bad = append(res.Bad, BadSegment{Segment: seg, Err: err})
			continue
		}
		if seg.SHA256 == "" {
			res.Unchecksummed++
		}
	}
	return res, nil
}

// verifySegment loads seg and decodes every row of it.
func verifySegment(ctx context.Context, store Store, seg Segment) error {
	sf, err := loadSegment(ctx, store, seg)
	if err != nil {
		return err
	}
	return verifyRows(sf, seg)
}

// verifyRows decodes every row of the opened segment sf and checks them
// against seg: the count and both ends.
func verifyRows(sf *segmentFile, seg Segment) error {
	var n int64
	first, last := seg.FirstEntry(), seg.LastEntry()
	var seenFirst, seenLast bool
	if _, err := sf.scan(echomq.All, false, func(ev echomq.Event) bool {
		n++
		seenFirst = seenFirst || ev.Entry == first
		seenLast = ev.Entry == last
		return true
	}); err != nil {
		return err
	}
	switch {
	case n != seg.Count:
		return &CorruptError{Name: seg.Name, Reason: fmt.Sprintf("decoded %d rows, the manifest says %d", n, seg.Count)}
	case !seenFirst || !seenLast:
		return &CorruptError{Name: seg.Name, Reason: fmt.Sprintf("does not begin at %s and end at %s as the manifest says", seg.First, seg.Last)}
	}
	return nil
}

// VerifyQueue scrubs every archived stream of queue q in store (every
// queue when q is empty), in queue and stream order. Errors as [Verify].
func VerifyQueue(ctx context.Context, store Store, q string) ([]VerifyResult, error) {
	refs, err := Streams(ctx, store)
	if err != nil {
		return nil, err
	}
	var out []VerifyResult
	for _, ref := range refs {
		if q != "" && ref.Queue != q {
			continue
		}
		res, err := Verify(ctx, store, ref.Queue, ref.Stream)
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

// String renders r as one line: "q/s: ok, 3 segments, 1200 entries" or the
// problems.
func (r VerifyResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", r.Stream)
	switch {
	case r.Manifest != nil:
		fmt.Fprintf(&b, "manifest corrupt: %v", r.Manifest)
	case len(r.Bad) > 0:
		fmt.Fprintf(&b, "%d of %d segments bad", len(r.Bad), r.Segments)
	default:
		fmt.Fprintf(&b, "ok, %d segments, %d entries", r.Segments, r.Entries)
	}
	return b.String()
}
