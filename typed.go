package echomq

import (
	"context"
	"iter"
)

// EventSource is what a [Typed] view reads: a [*Stream] itself, or any
// reader with the same two reads, such as the archive's merged reader
// (archive.Reader), so typed reads and their upcasting cross the archive
// seam unchanged.
type EventSource interface {
	Scan(ctx context.Context, r Range, opts *ScanOpts) iter.Seq2[Event, error]
	Follow(ctx context.Context, opts *FollowOpts) iter.Seq2[Event, error]
}

var _ EventSource = (*Stream)(nil)

// TypedOpts configure [NewTyped]; nil means an unversioned view.
type TypedOpts struct {
	// Version is the schema version the view writes (in [VersionField])
	// and decodes to. Defaults to 0: unversioned, unless Upcasters are
	// given, then len(Upcasters)+1. An unversioned view writes no version
	// field and takes every payload as it is. At most 2^20.
	Version int
	// Upcasters bring old payloads up to Version: Upcasters[0] turns v1
	// into v2, Upcasters[1] v2 into v3, and so on (Version-1 of them). An
	// entry without a version field is version 1. They run on every read
	// path of the view: Read, Scan, Follow, the consumer handler and
	// [Typed.Decode] (which projections and merged archive reads use).
	// Defaults to none.
	Upcasters []UpcastFunc
}

// TypedEvent is one event decoded: the stored event, the value and the
// schema version it was stored under (before upcasting; 1 for an entry
// without a version field, 0 on an unversioned view's unversioned entry).
type TypedEvent[T any] struct {
	Event
	Value   T
	Version int
}

// Typed is a typed view of one stream: values of T appended and read back
// through a [Codec], old schema versions upcast on the way in. The stream
// itself stays a stream of string pairs: untyped readers, folds and the CLI
// see the codec's fields. A Typed view is cheap and safe for concurrent use.
//
// Bad names and bad options are caught when the view is made: every verb
// then returns the error (see [Typed.Err]) before any I/O.
type Typed[T any] struct {
	s     *Stream
	src   EventSource
	codec Codec[T]
	up    upcaster
	err   error
}

// NewTyped returns the typed view of s with codec (nil means
// [JSONFields]) and opts. Errors, reported by [Typed.Err] and by every
// verb: the stream handle's [*NameError]; an [*ArgumentError] for a
// version outside [0, 2^20], a chain of the wrong length or a nil
// upcaster.
func NewTyped[T any](s *Stream, codec Codec[T], opts *TypedOpts) *Typed[T] {
	if codec == nil {
		codec = JSONFields[T]()
	}
	t := &Typed[T]{s: s, src: s, codec: codec}
	if s == nil {
		t.err = &ArgumentError{Name: "stream", Reason: "must not be nil"}
		return t
	}
	t.err = s.Err()
	if opts != nil && t.err == nil {
		t.up, t.err = newUpcaster(opts.Version, opts.Upcasters)
	}
	return t
}

// Over returns a view with the same stream, codec and upcasters that reads
// from src instead of the live stream, such as the archive's merged reader
// of the same stream. Appends still go to the stream.
func (t *Typed[T]) Over(src EventSource) *Typed[T] {
	u := *t
	if src == nil {
		u.err = &ArgumentError{Name: "source", Reason: "must not be nil"}
	} else {
		u.src = src
	}
	return &u
}

// Err returns the error every verb of a badly made view returns, or nil.
func (t *Typed[T]) Err() error { return t.err }

// Stream returns the stream the view appends to.
func (t *Typed[T]) Stream() *Stream { return t.s }

// Key returns the stream's key.
func (t *Typed[T]) key() string {
	if t.s == nil {
		return ""
	}
	return t.s.key
}

// Encode returns the fields v is appended as: the codec's, then the
// version field of a versioned view. Errors: an [*ArgumentError] when the
// codec fails, a [*FieldError] when its fields are not pairs or name "id"
// or [VersionField].
func (t *Typed[T]) Encode(v T) (Fields, error) {
	f, err := t.codec.Encode(v)
	if err != nil {
		return nil, &ArgumentError{Name: "value", Reason: "cannot encode: " + err.Error()}
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if t.up.version > 0 {
		for i := 0; i < len(f); i += 2 {
			if f[i] == VersionField {
				return nil, &FieldError{Field: VersionField, Reason: "reserved for the schema version of a versioned typed stream", err: ErrReservedField}
			}
		}
	}
	return t.up.stamp(f), nil
}

// Decode turns a stored event into a value: it removes the version field,
// runs the upcasters from the entry's version to the view's, and decodes
// with the codec. Errors: a [*DecodeError] (matching [ErrDecode]) naming
// the stage that failed.
func (t *Typed[T]) Decode(ev Event) (TypedEvent[T], error) {
	out := TypedEvent[T]{Event: ev}
	f, version, stage, err := t.up.lift(ev.Fields)
	out.Version = version
	if err == nil {
		if out.Value, err = t.codec.Decode(f); err != nil {
			stage = "codec"
		}
	}
	if err != nil {
		return out, &DecodeError{Stream: t.key(), Entry: ev.Entry, ID: ev.ID, Version: version, Stage: stage, Err: err}
	}
	return out, nil
}

// Append encodes v and appends it with opts (nil: none); see
// [Stream.Append] for the options and errors, plus those of [Typed.Encode]
// (before any I/O).
func (t *Typed[T]) Append(ctx context.Context, v T, opts *AppendOpts) (ID, error) {
	if t.err != nil {
		return ID{}, opError("append", t.key(), t.err)
	}
	f, err := t.Encode(v)
	if err != nil {
		return ID{}, opError("append", t.key(), err)
	}
	return t.s.Append(ctx, f, opts)
}

// Read returns the decoded events of r, oldest first (newest first with
// opts.Reverse), at most opts.Count of them. The first entry that does not
// decode ends the read with its [*DecodeError]; otherwise the errors are
// those of the source's reads.
func (t *Typed[T]) Read(ctx context.Context, r Range, opts *ReadOpts) ([]TypedEvent[T], error) {
	count, rev, err := opts.get()
	if err != nil {
		return nil, opError("read", t.key(), err)
	}
	sopts := &ScanOpts{Reverse: rev}
	if count > 0 && count < 1000 {
		sopts.PageSize = int(count)
	}
	out := make([]TypedEvent[T], 0, min(max(count, 16), 1000))
	for ev, err := range t.Scan(ctx, r, sopts) {
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
		if count > 0 && int64(len(out)) == count {
			break
		}
	}
	return out, nil
}

// Scan iterates over the decoded events of r; see [Stream.Scan]. An entry
// that does not decode is yielded as its [*DecodeError] (with the stored
// event in the TypedEvent) and the iteration goes on if the loop does; any
// other error ends it.
func (t *Typed[T]) Scan(ctx context.Context, r Range, opts *ScanOpts) iter.Seq2[TypedEvent[T], error] {
	return func(yield func(TypedEvent[T], error) bool) {
		if t.err != nil {
			yield(TypedEvent[T]{}, opError("scan", t.key(), t.err))
			return
		}
		t.each(t.src.Scan(ctx, r, opts), yield)
	}
}

// Follow yields decoded events as they are appended; see [Stream.Follow].
// An entry that does not decode is yielded as its [*DecodeError] and the
// following goes on if the loop does.
func (t *Typed[T]) Follow(ctx context.Context, opts *FollowOpts) iter.Seq2[TypedEvent[T], error] {
	return func(yield func(TypedEvent[T], error) bool) {
		if t.err != nil {
			yield(TypedEvent[T]{}, opError("follow", t.key(), t.err))
			return
		}
		t.each(t.src.Follow(ctx, opts), yield)
	}
}

func (t *Typed[T]) each(seq iter.Seq2[Event, error], yield func(TypedEvent[T], error) bool) {
	for ev, err := range seq {
		if err != nil {
			if !yield(TypedEvent[T]{Event: ev}, err) {
				return
			}
			continue
		}
		if !yield(t.Decode(ev)) {
			return
		}
	}
}

// TypedDelivery is one delivery decoded for a typed handler.
type TypedDelivery[T any] struct {
	Delivery
	Value   T
	Version int
}

// Handler returns a consumer [HandlerFunc] that decodes each delivery
// (upcasting it) and calls fn with the value. An entry that does not decode
// never will, so it is not retried: the handler returns its
// [*DecodeError], which the consumer moves to the dead letters at once with
// the error's text as the reason (unless dead-lettering is disabled with a
// negative MaxDeliveries).
func (t *Typed[T]) Handler(fn func(ctx context.Context, d TypedDelivery[T]) error) HandlerFunc {
	return func(ctx context.Context, d Delivery) error {
		if t.err != nil {
			return t.err
		}
		ev, err := t.Decode(d.Event)
		if err != nil {
			return err
		}
		return fn(ctx, TypedDelivery[T]{Delivery: d, Value: ev.Value, Version: ev.Version})
	}
}
