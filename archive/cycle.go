package archive

import (
	"context"
	"errors"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
	"github.com/echomq/echomq/retention"
)

// CycleResult is the outcome of one cycle of one stream.
type CycleResult struct {
	Policy Policy
	// Folded counts the entries archived by this cycle.
	Folded int64
	// Segments are the segments this cycle wrote and committed.
	Segments []Segment
	// Generation is the manifest generation after the cycle.
	Generation uint64
	// PrevWatermark and Watermark are W before and after the cycle (zero
	// when nothing is archived).
	PrevWatermark, Watermark echomq.ID
	// Trimmed counts the entries the trims removed (all at or below W).
	Trimmed int64
	// Cache is what the reconciliation of the watermark cache found.
	Cache CacheCheck
}

// CacheCheck compares the watermark cache ("…:archived") with the
// manifest at the start of a cycle. The manifest wins: a missing cache is
// restored from it, a disagreeing one is reported and overwritten (or
// deleted when the manifest has no watermark).
type CacheCheck struct {
	Cached   echomq.ID // the cached W, zero when absent or unreadable
	HadCache bool      // a cache key existed
	Manifest echomq.ID // the manifest's W
	Restored bool      // the cache was absent and was restored
	Mismatch bool      // the cache disagreed with the manifest
}

// Cycle archives one stream once, in the crash-safe order: read the slice
// above W up to the policy's horizon (a length rule counts the live entries
// above W first, so entries appended meanwhile are never in the slice) →
// write it as immutable segments → commit the manifest (the commit point) →
// cache W → trim exactly at the successor of W, which can only remove
// archived entries. A stream with nothing to fold still has its trim
// re-applied, finishing a cycle that died before its trim.
//
// Errors, each ending the cycle before any trim: the policy's
// [*echomq.NameError] or [*echomq.ArgumentError] (before any I/O); a
// [*LockedError] when another archiver holds the stream; a [*ConflictError]
// when another archiver committed first; a [*StoreError] or [*CorruptError]
// from the store; the engine's errors. A failure after the commit (caching W,
// trimming) leaves the archive committed and the stream untrimmed: the next
// cycle finishes the job.
func (a *Archiver) Cycle(ctx context.Context, p Policy) (CycleResult, error) {
	res := CycleResult{Policy: p}
	if err := p.Validate(); err != nil {
		return res, streamErr("cycle", p.Queue, p.Stream, err)
	}
	start := time.Now()
	err := streamErr("cycle", p.Queue, p.Stream, a.cycle(ctx, p, &res))
	a.cycled(ctx, start, res, err)
	return res, err
}

func (a *Archiver) cycle(ctx context.Context, p Policy, res *CycleResult) error {
	lk, err := a.lock(ctx, p.Queue, p.Stream)
	if err != nil {
		return err
	}
	defer func() {
		if err := lk.unlock(); err != nil {
			a.cfg.Logger.Warn("archive: unlock failed", "stream", p.Queue+"/"+p.Stream, "err", err)
		}
	}()
	stream := a.client.Stream(p.Queue, p.Stream)
	m, err := loadManifest(ctx, a.store, p.Queue, p.Stream)
	if err != nil {
		return err
	}
	res.PrevWatermark, res.Watermark, res.Generation = m.Watermark, m.Watermark, m.Generation
	if res.Cache, err = a.reconcile(ctx, stream, m); err != nil {
		return err
	}
	a.step(StepEvent{Step: StepLocked, Queue: p.Queue, Stream: p.Stream, Watermark: m.Watermark})
	if m.HasWatermark() {
		// Finish the trim of a cycle that died after its commit, so the
		// live stream holds only entries above W before it is measured.
		n, err := a.trim(ctx, stream, m.Watermark)
		res.Trimmed += n
		if err != nil {
			return err
		}
	}
	r, limit, ok, err := a.slice(ctx, stream, m, p.Keep)
	if err != nil {
		return err
	}
	if ok {
		segs, err := a.fold(ctx, stream, m, r, limit, res)
		if err != nil {
			return err
		}
		if len(segs) > 0 {
			if err := lk.check(ctx); err != nil {
				return err
			}
			next := m.next(segs, a.cfg.Clock())
			if err := commitManifest(ctx, a.store, next); err != nil {
				return err
			}
			m = next
			res.Segments, res.Generation, res.Watermark = segs, m.Generation, m.Watermark
			a.step(StepEvent{Step: StepManifestCommitted, Queue: p.Queue, Stream: p.Stream, Watermark: m.Watermark})
			if err := SetWatermark(ctx, stream, m.Watermark); err != nil {
				return err
			}
			a.step(StepEvent{Step: StepWatermarkCached, Queue: p.Queue, Stream: p.Stream, Watermark: m.Watermark})
		}
	}
	if !m.HasWatermark() {
		return nil
	}
	a.step(StepEvent{Step: StepTrimming, Queue: p.Queue, Stream: p.Stream, Watermark: m.Watermark})
	n, err := a.trim(ctx, stream, m.Watermark)
	res.Trimmed += n
	if err != nil {
		return err
	}
	a.step(StepEvent{Step: StepTrimmed, Queue: p.Queue, Stream: p.Stream, Watermark: m.Watermark})
	a.pruneManifests(ctx, m)
	return nil
}

// trim removes the live entries at or below w: XTRIM MINID = succ(w). It
// is the archive's own path, past the guard of echomq.Stream.Trim (which
// refuses a stream under archive control): a trim at the watermark can
// only remove archived entries, so it is safe by construction. A stream
// with tagged events loses their tag index entries in the same script
// (package dcb).
func (a *Archiver) trim(ctx context.Context, stream *echomq.Stream, w echomq.ID) (int64, error) {
	succ, ok := w.EntryID().Next()
	if !ok {
		return 0, nil
	}
	start := time.Now()
	q := stream.Queue()
	ix := wire.TrimIndex{Prefix: keyspace.DCBPrefix(q), Types: keyspace.DCBTypesKey(q), Floor: keyspace.DCBFloorKey(q), Name: stream.Name()}
	n, err := clientconn.Of(stream.Client()).IndexedTrim(ctx, stream.Key(), ix, "MINID", succ.String())
	a.trimmed(ctx, stream, n, time.Since(start), err)
	if err != nil {
		return n, &echomq.OpError{Op: "trim", Key: stream.Key(), Err: err}
	}
	return n, nil
}

// slice returns the range of live entries this cycle folds, with a count
// limit for a length rule (0: none), and false when there is nothing to
// fold. The live stream holds nothing at or below W here (see cycle).
func (a *Archiver) slice(ctx context.Context, stream *echomq.Stream, m *Manifest, keep retention.Rule) (echomq.Range, int64, bool, error) {
	from := echomq.Unbounded
	if m.HasWatermark() {
		from = echomq.After(m.Watermark)
	}
	if keep.Kind() == retention.KindMaxLen {
		// The oldest len-n entries above W: appends land above them, so
		// the set is fixed the moment the length is read.
		info, err := stream.Info(ctx)
		if err != nil {
			return echomq.Range{}, 0, false, err
		}
		k := info.Length - keep.Len()
		return echomq.Span(from, echomq.Unbounded), k, k > 0, nil
	}
	h, _ := keep.Horizon(a.cfg.Clock())
	if m.HasWatermark() && m.Watermark.EntryID().Compare(h) >= 0 {
		return echomq.Range{}, 0, false, nil
	}
	return echomq.Span(from, echomq.Exclusive(h)), 0, true, nil
}

// fold reads r (at most limit entries when limit > 0) and writes it as
// segments of at most SegmentEntries entries each.
func (a *Archiver) fold(ctx context.Context, stream *echomq.Stream, m *Manifest, r echomq.Range, limit int64, res *CycleResult) ([]Segment, error) {
	q, name := m.Queue, m.Stream
	var (
		segs        []Segment
		sw          *segmentWriter
		first, last echomq.ID
		bytes       int64
	)
	prog := Progress{Op: "archive", Queue: q, Stream: name, Total: limit}
	flush := func() error {
		data, err := sw.finish(first, last)
		if err != nil {
			return err
		}
		obj := segmentName(q, name, first, last)
		if err := a.store.Put(ctx, obj, data, nil); err != nil {
			return &StoreError{Op: "put", Name: obj, Err: err}
		}
		seg := Segment{Name: obj, First: first, Last: last, Count: sw.count, Bytes: int64(len(data)), CreatedAt: a.cfg.Clock().UTC(), SHA256: segmentSum(data)}
		segs = append(segs, seg)
		bytes += seg.Bytes
		sw = nil
		a.step(StepEvent{Step: StepSegmentWritten, Queue: q, Stream: name, Segment: obj, Watermark: m.Watermark})
		prog.Segments, prog.Bytes = len(segs), bytes
		a.progress(prog)
		return nil
	}
	page := a.cfg.PageSize
	if limit > 0 && limit < int64(page) {
		page = int(limit)
	}
	for ev, err := range stream.Scan(ctx, r, &echomq.ScanOpts{PageSize: page}) {
		if err != nil {
			return nil, err
		}
		id, err := idOf(ev.Entry)
		if err != nil {
			return nil, err
		}
		if sw == nil {
			sw, first = newSegmentWriter(q, name), id
		}
		if err := sw.add(ev); err != nil {
			return nil, err
		}
		last = id
		res.Folded++
		if prog.Done = res.Folded; prog.Done%int64(a.cfg.PageSize) == 0 {
			a.progress(prog)
		}
		if sw.count == int64(a.cfg.SegmentEntries) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		if limit > 0 && res.Folded == limit {
			break
		}
	}
	if sw != nil {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return segs, nil
}

// reconcile compares the watermark cache with the manifest and makes the
// cache say what the manifest says.
func (a *Archiver) reconcile(ctx context.Context, stream *echomq.Stream, m *Manifest) (CacheCheck, error) {
	cc := CacheCheck{Manifest: m.Watermark}
	cached, ok, err := Watermark(ctx, stream)
	var idErr *echomq.IDError
	switch {
	case errors.As(err, &idErr):
		cc.HadCache = true // unreadable: a disagreement
	case err != nil:
		return cc, err
	default:
		cc.Cached, cc.HadCache = cached, ok
	}
	switch {
	case !cc.HadCache && !m.HasWatermark():
		return cc, nil
	case !cc.HadCache:
		cc.Restored = true
		a.cfg.Logger.Info("archive: watermark cache restored from the manifest", "stream", m.Queue+"/"+m.Stream, "watermark", m.Watermark.String())
		return cc, SetWatermark(ctx, stream, m.Watermark)
	case cc.Cached == m.Watermark:
		return cc, nil
	}
	cc.Mismatch = true
	a.cfg.Logger.Warn("archive: watermark cache disagrees with the manifest; the manifest wins",
		"stream", m.Queue+"/"+m.Stream, "cache", idString(cc.Cached), "manifest", idString(m.Watermark))
	if !m.HasWatermark() {
		_, err := ClearWatermark(ctx, stream)
		return cc, err
	}
	return cc, SetWatermark(ctx, stream, m.Watermark)
}

func idString(id echomq.ID) string {
	if id.IsZero() {
		return "(none)"
	}
	return id.String()
}

// pruneManifests deletes generations older than the newest KeepManifests,
// best effort: a leftover generation is harmless (the newest wins) and a
// later cycle or GC retries.
func (a *Archiver) pruneManifests(ctx context.Context, m *Manifest) {
	del, ok := a.store.(Deleter)
	if !ok || m.Generation <= uint64(a.cfg.KeepManifests) {
		return
	}
	gens, err := generations(ctx, a.store, m.Queue, m.Stream)
	if err != nil {
		return
	}
	for _, g := range gens {
		if g+uint64(a.cfg.KeepManifests) <= m.Generation {
			_ = del.Delete(ctx, manifestName(m.Queue, m.Stream, g))
		}
	}
}
