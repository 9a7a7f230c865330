package partition

import (
	"context"
	"iter"

	"github.com/echomq/echomq"
)

// Typed is a typed view of a partitioned stream: values of T appended to
// the partition of their key through a codec, and read back merged in id
// order, upcast as an [echomq.Typed] view does. It is cheap and safe for
// concurrent use.
type Typed[T any] struct {
	s    *Stream
	view *echomq.Typed[T]
}

// NewTyped returns the typed view of s with codec (nil means
// echomq.JSONFields) and opts; bad options are reported by [Typed.Err] and
// every verb, as by [echomq.NewTyped].
func NewTyped[T any](s *Stream, codec echomq.Codec[T], opts *echomq.TypedOpts) *Typed[T] {
	return &Typed[T]{s: s, view: echomq.NewTyped(s.parts[0], codec, opts).Over(s)}
}

// Err returns the error every verb of a badly made view returns, or nil.
func (t *Typed[T]) Err() error { return t.view.Err() }

// View returns the [echomq.Typed] view that reads the merged stream: its
// reads, Decode and Handler are this view's; its own Append would go to
// the first partition, so append through [Typed.Append].
func (t *Typed[T]) View() *echomq.Typed[T] { return t.view }

// Append encodes v ([echomq.Typed.Encode]: codec, then the schema version)
// and appends it to the partition of key; see [Stream.Append].
func (t *Typed[T]) Append(ctx context.Context, key string, v T, opts *echomq.AppendOpts) (echomq.ID, error) {
	if err := t.view.Err(); err != nil {
		return echomq.ID{}, err
	}
	f, err := t.view.Encode(v)
	if err != nil {
		return echomq.ID{}, err
	}
	return t.s.Append(ctx, key, f, opts)
}

// Read returns the decoded events of r merged in id order, at most
// opts.Count; see [echomq.Typed.Read]. Reverse is refused, as by
// [Stream.Scan].
func (t *Typed[T]) Read(ctx context.Context, r echomq.Range, opts *echomq.ReadOpts) ([]echomq.TypedEvent[T], error) {
	return t.view.Read(ctx, r, opts)
}

// Scan iterates over the decoded events of r merged in id order.
func (t *Typed[T]) Scan(ctx context.Context, r echomq.Range, opts *echomq.ScanOpts) iter.Seq2[echomq.TypedEvent[T], error] {
	return t.view.Scan(ctx, r, opts)
}

// Follow yields decoded events as they are appended, merged as
// [Stream.Follow] merges them.
func (t *Typed[T]) Follow(ctx context.Context, opts *echomq.FollowOpts) iter.Seq2[echomq.TypedEvent[T], error] {
	return t.view.Follow(ctx, opts)
}

// Handler adapts fn to a group member's handler that decodes each
// delivery; see [echomq.Typed.Handler].
func (t *Typed[T]) Handler(fn func(ctx context.Context, d echomq.TypedDelivery[T]) error) echomq.HandlerFunc {
	return t.view.Handler(fn)
}
