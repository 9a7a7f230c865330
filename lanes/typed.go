package lanes

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/echomq/echomq"
)

// Codec turns values of T into job payloads and back. It must be safe for
// concurrent use.
type Codec[T any] interface {
	Marshal(v T) ([]byte, error)
	Unmarshal(b []byte) (T, error)
}

// JSON is the [Codec] of encoding/json.
type JSON[T any] struct{}

// Marshal encodes v as JSON.
func (JSON[T]) Marshal(v T) ([]byte, error) { return json.Marshal(v) }

// Unmarshal decodes JSON into a T.
func (JSON[T]) Unmarshal(b []byte) (T, error) {
	var v T
	err := json.Unmarshal(b, &v)
	return v, err
}

// Typed carries values of T as the payloads of a [Queue]'s jobs. The queue
// itself stays byte-based; Typed only encodes at the edges.
type Typed[T any] struct {
	q     *Queue
	codec Codec[T]
}

// NewTyped returns q carrying values of T encoded by codec (nil means
// [JSON]).
func NewTyped[T any](q *Queue, codec Codec[T]) *Typed[T] {
	if codec == nil {
		codec = JSON[T]{}
	}
	return &Typed[T]{q: q, codec: codec}
}

// Queue returns the underlying queue.
func (t *Typed[T]) Queue() *Queue { return t.q }

// Enqueue encodes v and enqueues it on lane; see [Queue.Enqueue]. A value
// the codec cannot encode is an [*echomq.ArgumentError], with nothing
// written.
func (t *Typed[T]) Enqueue(ctx context.Context, lane string, v T, opts *EnqueueOpts) (echomq.ID, error) {
	b, err := t.codec.Marshal(v)
	if err != nil {
		return echomq.ID{}, argError("payload", fmt.Sprintf("cannot encode: %v", err))
	}
	return t.q.Enqueue(ctx, lane, b, opts)
}

// Handler returns a [Handler] that decodes each job's payload and calls fn
// with it. A payload that does not decode can never succeed, so its job is
// given up at once ([Cancel]) rather than retried.
func (t *Typed[T]) Handler(fn func(ctx context.Context, job *Job, v T) error) Handler {
	return HandlerFunc(func(ctx context.Context, job *Job) error {
		v, err := t.codec.Unmarshal(job.Payload)
		if err != nil {
			return Cancel(fmt.Errorf("decode payload: %w", err))
		}
		return fn(ctx, job, v)
	})
}
