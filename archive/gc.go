package archive

import (
	"context"
	"strings"
	"time"

	"github.com/echomq/echomq"
)

// GCOpts are per-call knobs of [Archiver.GC]; nil means the defaults.
type GCOpts struct {
	// MinAge spares orphan segments above the watermark younger than it:
	// an archiver whose lock expired could still be about to commit one.
	// Orphans at or below W are dead whatever their age (a commit on top of
	// an older manifest fails). Defaults to 1h; use a nanosecond to collect
	// every orphan of a stream no archiver is running on.
	MinAge time.Duration
	// DryRun reports what would be deleted and deletes nothing. Defaults to
	// false.
	DryRun bool
}

// GCResult lists what a collection deleted (or would delete) and kept.
type GCResult struct {
	// Deleted are the orphan segments and old manifest generations removed.
	Deleted []Object
	// Kept are orphan segments spared for their age.
	Kept []Object
	// Bytes is the size of Deleted.
	Bytes int64
}

// GC collects the garbage of the stream q/name: segments no manifest
// references (left by a cycle that died or lost a conflict before its
// commit) and manifest generations older than the newest KeepManifests. It
// holds the stream's lock, so no cycle of this archive runs meanwhile.
//
// Errors: a bad name's [*echomq.NameError] and [*echomq.ArgumentError] for a
// negative MinAge or a store that is not a [Deleter] (before I/O); a
// [*LockedError]; the store's errors.
func (a *Archiver) GC(ctx context.Context, q, name string, opts *GCOpts) (GCResult, error) {
	var res GCResult
	o := GCOpts{MinAge: time.Hour}
	if opts != nil {
		if opts.MinAge < 0 {
			return res, streamErr("gc", q, name, &echomq.ArgumentError{Name: "min age", Reason: "must not be negative"})
		}
		o.MinAge, o.DryRun = or(opts.MinAge, time.Hour), opts.DryRun
	}
	if err := checkStream(q, name); err != nil {
		return res, streamErr("gc", q, name, err)
	}
	del, ok := a.store.(Deleter)
	if !ok {
		return res, streamErr("gc", q, name, &echomq.ArgumentError{Name: "store", Reason: "cannot delete objects"})
	}
	err := a.gc(ctx, del, q, name, o, &res)
	return res, streamErr("gc", q, name, err)
}

func (a *Archiver) gc(ctx context.Context, del Deleter, q, name string, o GCOpts, res *GCResult) error {
	lk, err := a.lock(ctx, q, name)
	if err != nil {
		return err
	}
	defer func() { _ = lk.unlock() }()
	m, err := loadManifest(ctx, a.store, q, name)
	if err != nil {
		return err
	}
	live := make(map[string]bool, len(m.Segments))
	for _, s := range m.Segments {
		live[s.Name] = true
	}
	prefix := segmentPrefix(q, name)
	objs, err := a.store.List(ctx, prefix)
	if err != nil {
		return &StoreError{Op: "list", Name: prefix, Err: err}
	}
	now := time.Now()
	var doomed []Object
	for _, obj := range objs {
		if live[obj.Name] {
			continue
		}
		last, ok := segmentLast(prefix, obj.Name)
		dead := ok && m.HasWatermark() && last.Compare(m.Watermark) <= 0
		if dead || now.Sub(obj.ModTime) >= o.MinAge {
			doomed = append(doomed, obj)
		} else {
			res.Kept = append(res.Kept, obj)
		}
	}
	mp := manifestPrefix(q, name)
	mobjs, err := a.store.List(ctx, mp)
	if err != nil {
		return &StoreError{Op: "list", Name: mp, Err: err}
	}
	for _, obj := range mobjs {
		if g, ok := parseManifestName(mp, obj.Name); ok && g+uint64(a.cfg.KeepManifests) <= m.Generation {
			doomed = append(doomed, obj)
		}
	}
	for _, obj := range doomed {
		if !o.DryRun {
			if err := del.Delete(ctx, obj.Name); err != nil {
				return &StoreError{Op: "delete", Name: obj.Name, Err: err}
			}
		}
		res.Deleted = append(res.Deleted, obj)
		res.Bytes += obj.Size
	}
	return nil
}

// segmentLast parses the last id out of a segment object name.
func segmentLast(prefix, obj string) (echomq.ID, bool) {
	base, ok := strings.CutPrefix(obj, prefix)
	if !ok {
		return echomq.ID{}, false
	}
	base, ok = strings.CutSuffix(base, ".parquet")
	_, last, cut := strings.Cut(base, "-")
	if !ok || !cut {
		return echomq.ID{}, false
	}
	id, err := echomq.ParseEventID(last)
	return id, err == nil
}
