package archive

import (
	"context"
	"errors"
	"time"

	"github.com/echomq/echomq"
)

// Status describes one stream's archive and live tail.
type Status struct {
	Queue, Stream string
	// Generation is the committed manifest generation (0: never archived).
	Generation uint64
	// Watermark is W, the newest archived id (zero: nothing archived).
	Watermark echomq.ID
	// Segments, Entries and Bytes describe the archive.
	Segments int
	Entries  int64
	Bytes    int64
	// First and Last are the oldest and newest archived ids.
	First, Last echomq.ID
	// Cached is the watermark cache; HasCache says whether it exists, and
	// CacheMismatch whether it disagrees with the manifest (which wins; the
	// next cycle repairs it).
	Cached        echomq.ID
	HasCache      bool
	CacheMismatch bool
	// Live describes the live stream.
	Live echomq.StreamInfo
}

// WatermarkTime returns W's mint instant, the zero time when nothing is
// archived.
func (s Status) WatermarkTime() time.Time {
	if s.Watermark.IsZero() {
		return time.Time{}
	}
	return s.Watermark.Time()
}

// Status returns the archive and live state of the stream q/name. It
// changes nothing. Errors: a bad name's [*echomq.NameError] (before I/O);
// an error matching [ErrCorrupt]; the store's and the engine's errors.
func (a *Archiver) Status(ctx context.Context, q, name string) (Status, error) {
	st := Status{Queue: q, Stream: name}
	if err := checkStream(q, name); err != nil {
		return st, streamErr("status", q, name, err)
	}
	m, err := loadManifest(ctx, a.store, q, name)
	if err != nil {
		return st, streamErr("status", q, name, err)
	}
	st.Generation, st.Watermark, st.Segments, st.Entries, st.Bytes = m.Generation, m.Watermark, len(m.Segments), m.Entries, m.Bytes
	if len(m.Segments) > 0 {
		st.First, st.Last = m.Segments[0].First, m.Segments[len(m.Segments)-1].Last
	}
	stream := a.client.Stream(q, name)
	cached, ok, err := Watermark(ctx, stream)
	var idErr *echomq.IDError
	switch {
	case errors.As(err, &idErr):
		st.HasCache, st.CacheMismatch = true, true
	case err != nil:
		return st, streamErr("status", q, name, err)
	default:
		st.Cached, st.HasCache = cached, ok
		st.CacheMismatch = ok && cached != m.Watermark || !ok && m.HasWatermark()
	}
	if st.Live, err = stream.Info(ctx); err != nil {
		return st, streamErr("status", q, name, err)
	}
	return st, nil
}

// Streams lists the streams that have a manifest in store, sorted by queue
// and stream. Errors: the store's.
func Streams(ctx context.Context, store Store) ([]StreamRef, error) {
	if store == nil {
		return nil, &echomq.ArgumentError{Name: "store", Reason: "must not be nil"}
	}
	objs, err := store.List(ctx, "queue=")
	if err != nil {
		return nil, &StoreError{Op: "list", Name: "queue=", Err: err}
	}
	var out []StreamRef
	for _, o := range objs {
		ref, ok := parseStreamPrefix(o.Name)
		if !ok || checkStream(ref.Queue, ref.Stream) != nil {
			continue
		}
		if _, ok := parseManifestName(manifestPrefix(ref.Queue, ref.Stream), o.Name); !ok {
			continue
		}
		if len(out) == 0 || out[len(out)-1] != ref {
			out = append(out, ref)
		}
	}
	return out, nil
}
