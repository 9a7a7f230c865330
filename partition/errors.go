package partition

import (
	"errors"
	"fmt"

	"github.com/echomq/echomq"
)

var (
	// ErrNotPartitioned means [Open] found no partition counts recorded for
	// the stream: it was never made with [Create].
	ErrNotPartitioned = errors.New("partition: not a partitioned stream")
	// ErrMismatch means [Create] or [Stream.Repartition] found other
	// partition counts recorded than the caller expected; nothing was
	// written.
	ErrMismatch = errors.New("partition: partition count mismatch")
)

// MismatchError says which partition counts the engine holds for a stream
// and which the caller asked for; it matches [ErrMismatch].
type MismatchError struct {
	Queue, Stream string
	Want          int   // the count asked for
	Have          []int // the counts recorded, oldest first
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("partition: %s/%s has %v partitions recorded, not %d", e.Queue, e.Stream, e.Have, e.Want)
}

// Is makes errors.Is(err, ErrMismatch) true.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// NotPartitionedError names the stream [Open] found no counts for; it
// matches [ErrNotPartitioned].
type NotPartitionedError struct{ Queue, Stream string }

func (e *NotPartitionedError) Error() string {
	return fmt.Sprintf("partition: %s/%s is not a partitioned stream (no partition count recorded)", e.Queue, e.Stream)
}

// Is makes errors.Is(err, ErrNotPartitioned) true.
func (e *NotPartitionedError) Is(target error) bool { return target == ErrNotPartitioned }

func errorsIsGroupNotFound(err error) bool { return errors.Is(err, echomq.ErrGroupNotFound) }
