package archive

import (
	"context"
	"errors"
	"fmt"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/keyspace"
)

// LoadManifest returns the committed manifest of the stream q/name in
// store: the highest generation. A stream never archived returns an empty
// manifest (Generation 0, no watermark) and no error. Errors: a bad name's
// [*echomq.NameError] (before any I/O); an error matching [ErrCorrupt] for
// a manifest that cannot be decoded; the store's errors.
func LoadManifest(ctx context.Context, store Store, q, name string) (*Manifest, error) {
	if err := checkStream(q, name); err != nil {
		return nil, err
	}
	if store == nil {
		return nil, &echomq.ArgumentError{Name: "store", Reason: "must not be nil"}
	}
	return loadManifest(ctx, store, q, name)
}

func checkStream(q, name string) error {
	if err := keyspace.Queue(q); err != nil {
		return err
	}
	return keyspace.Stream(name)
}

func loadManifest(ctx context.Context, store Store, q, name string) (*Manifest, error) {
	for attempt := 0; ; attempt++ {
		gen, err := latestGeneration(ctx, store, q, name)
		if err != nil || gen == 0 {
			return &Manifest{Queue: q, Stream: name}, err
		}
		obj := manifestName(q, name, gen)
		b, err := getLimited(ctx, store, obj, MaxManifestBytes)
		if errors.Is(err, ErrNotFound) {
			// Listed a moment ago: a cycle committed a newer generation and
			// pruned this one meanwhile. List again.
			if attempt < 3 {
				continue
			}
			return nil, &CorruptError{Name: obj, Reason: "listed but not found"}
		}
		if err != nil {
			return nil, &StoreError{Op: "get", Name: obj, Err: err}
		}
		if len(b) > MaxManifestBytes {
			return nil, &CorruptError{Name: obj, Reason: fmt.Sprintf("larger than %d bytes", MaxManifestBytes)}
		}
		return decodeManifest(obj, q, name, gen, b)
	}
}

// latestGeneration lists the stream's manifests and returns the highest
// generation, 0 when there is none.
func latestGeneration(ctx context.Context, store Store, q, name string) (uint64, error) {
	gens, err := generations(ctx, store, q, name)
	if err != nil || len(gens) == 0 {
		return 0, err
	}
	return gens[len(gens)-1], nil
}

// generations returns the stream's manifest generations, ascending.
func generations(ctx context.Context, store Store, q, name string) ([]uint64, error) {
	prefix := manifestPrefix(q, name)
	objs, err := store.List(ctx, prefix)
	if err != nil {
		return nil, &StoreError{Op: "list", Name: prefix, Err: err}
	}
	gens := make([]uint64, 0, len(objs))
	for _, o := range objs {
		if g, ok := parseManifestName(prefix, o.Name); ok {
			gens = append(gens, g)
		}
	}
	return gens, nil // List sorts by name and the names are zero-padded
}

// commitManifest writes m exclusively: the commit point of a cycle. It
// returns an error matching [ErrConflict] when another archiver committed
// this generation first, or when (after the write) a higher generation
// exists, which means this one was written over a gap a GC left and is not
// the newest: either way nothing may be trimmed on its account.
func commitManifest(ctx context.Context, store Store, m *Manifest) error {
	obj := manifestName(m.Queue, m.Stream, m.Generation)
	err := store.Put(ctx, obj, m.encode(), &PutOpts{IfAbsent: true})
	if errors.Is(err, ErrExists) {
		return &ConflictError{Queue: m.Queue, Stream: m.Stream, Generation: m.Generation}
	}
	if err != nil {
		return &StoreError{Op: "put", Name: obj, Err: err}
	}
	latest, err := latestGeneration(ctx, store, m.Queue, m.Stream)
	if err != nil {
		return err
	}
	if latest != m.Generation {
		return &ConflictError{Queue: m.Queue, Stream: m.Stream, Generation: m.Generation, Newest: latest}
	}
	return nil
}

// ConflictError is a manifest commit that lost to another archiver; it
// matches [ErrConflict]. The cycle trimmed nothing; its segments are
// orphans for [Archiver.GC].
type ConflictError struct {
	Queue, Stream string
	Generation    uint64 // the generation this cycle tried to commit
	Newest        uint64 // a higher generation found after the commit, if any
}

func (e *ConflictError) Error() string {
	if e.Newest > e.Generation {
		return fmt.Sprintf("archive: %s/%s: manifest generation %d is not the newest (%d exists): another archiver is folding this stream", e.Queue, e.Stream, e.Generation, e.Newest)
	}
	return fmt.Sprintf("archive: %s/%s: manifest generation %d was committed by another archiver first", e.Queue, e.Stream, e.Generation)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }
