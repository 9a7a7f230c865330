package archive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/echomq/echomq"
)

// Store is where archives live: a flat namespace of immutable-by-convention
// objects named by slash-separated paths. Implementations: package fsstore
// (a local directory, the default) and package s3store (any S3-compatible
// object store). Every implementation passes archivetest.Run.
//
// A Store must be safe for concurrent use. Besides these three methods the
// archive uses two optional capabilities found by type assertion:
// [Deleter] (required by [Archiver.GC]) and [Locker].
type Store interface {
	// Put stores data under name, durably and atomically: once Put returns
	// nil the object survives a crash, and a reader sees either the old
	// object or the new one, never a torn one. With opts.IfAbsent, Put
	// fails with an error matching [ErrExists] when name exists, atomically
	// (of two concurrent exclusive Puts of one name, one fails): the
	// archive's commit point. Errors: [*echomq.ArgumentError] for a bad
	// name (see [CheckName]); the store's I/O errors.
	Put(ctx context.Context, name string, data []byte, opts *PutOpts) error

	// Get returns the object's bytes, or an error matching [ErrNotFound].
	Get(ctx context.Context, name string) ([]byte, error)

	// List returns every object whose name starts with prefix (at any
	// depth), sorted by name. A prefix with no object returns an empty list.
	List(ctx context.Context, prefix string) ([]Object, error)
}

// PutOpts are per-call knobs of [Store.Put]; nil means the defaults.
type PutOpts struct {
	// IfAbsent makes the Put exclusive: it fails with [ErrExists] when the
	// name exists. Defaults to false: replace.
	IfAbsent bool
}

// Object describes a stored object.
type Object struct {
	Name    string
	Size    int64
	ModTime time.Time
}

// Deleter is the optional capability of a [Store] to delete objects;
// [Archiver.GC] needs it. Deleting a missing object is not an error.
type Deleter interface {
	Delete(ctx context.Context, name string) error
}

// Locker is the optional capability of a [Store] to hold an exclusive lock
// across processes (fsstore: flock on a lock file, which the kernel
// releases when the holder dies). Lock does not wait: a lock held by
// another holder returns an error matching [ErrLocked]. The archiver takes
// the lock of a stream around each cycle, GC and restore; a store without
// one is guarded by a lease in the engine ("emq:{q}:stream:<name>:archiver").
type Locker interface {
	Lock(ctx context.Context, name string) (unlock func() error, err error)
}

// Sentinels callers branch on with errors.Is.
var (
	// ErrNotFound: no object has that name.
	ErrNotFound = errors.New("archive: object not found")
	// ErrExists: an exclusive Put found the name taken.
	ErrExists = errors.New("archive: object exists")
	// ErrLocked: another archiver holds the stream's lock.
	ErrLocked = errors.New("archive: locked by another archiver")
	// ErrConflict: another archiver committed the stream's manifest first;
	// this cycle committed nothing and trimmed nothing.
	ErrConflict = errors.New("archive: manifest conflict")
	// ErrCorrupt: a manifest or segment cannot be decoded, or the manifest
	// names a segment the store does not hold.
	ErrCorrupt = errors.New("archive: corrupt archive")
)

// CheckName returns an [*echomq.ArgumentError] unless name is a valid
// object name: 1..1024 bytes of slash-separated components, each non-empty,
// not starting with ".", made of [A-Za-z0-9._=-]. Stores check it so no
// name can escape a directory or a bucket prefix.
func CheckName(name string) error {
	if name == "" || len(name) > 1024 {
		return &echomq.ArgumentError{Name: "object name", Reason: fmt.Sprintf("%q: must be 1..1024 bytes", truncate(name))}
	}
	start := 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' {
			c := name[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '=' || c == '-') {
				return &echomq.ArgumentError{Name: "object name", Reason: fmt.Sprintf("%q: byte %q at %d is outside [A-Za-z0-9._=-/]", truncate(name), name[i:i+1], i)}
			}
			continue
		}
		if i == start {
			return &echomq.ArgumentError{Name: "object name", Reason: fmt.Sprintf("%q: empty path component", truncate(name))}
		}
		if name[start] == '.' {
			return &echomq.ArgumentError{Name: "object name", Reason: fmt.Sprintf("%q: a component may not start with \".\"", truncate(name))}
		}
		start = i + 1
	}
	return nil
}

// CheckPrefix returns an [*echomq.ArgumentError] unless prefix is "" or
// the beginning of a valid name (a trailing "/" allowed).
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	p := prefix
	if p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	if err := CheckName(p); err != nil {
		reason := err.Error()
		if ae, ok := errors.AsType[*echomq.ArgumentError](err); ok {
			reason = ae.Reason
		}
		return &echomq.ArgumentError{Name: "object prefix", Reason: reason}
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// StoreError wraps a failure of the store with the operation and object
// name; errors.Is and errors.As see through it.
type StoreError struct {
	Op   string // "put", "get", "list", "delete", "lock"
	Name string
	Err  error
}

func (e *StoreError) Error() string {
	return "archive: store " + e.Op + " " + e.Name + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *StoreError) Unwrap() error { return e.Err }
