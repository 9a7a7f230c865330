package projection

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/echomq/echomq"
)

// Sentinels callers branch on with errors.Is. Bad arguments are
// [*echomq.ArgumentError] (matching [echomq.ErrInvalidArgument]), bad names
// [*echomq.NameError], inverted windows [*echomq.RangeError]; failures of a
// source come back wrapped as they were yielded.
var (
	// ErrCodec: a projection's codec failed to encode or decode its state.
	// See [CodecError].
	ErrCodec = errors.New("echomq: projection codec failed")
	// ErrSnapshot: a stored snapshot is not in the snapshot format. See
	// [SnapshotError].
	ErrSnapshot = errors.New("echomq: malformed projection snapshot")
	// ErrRunning: [Live.Run] or [Live.Start] was called while the same Live
	// was running. It is [echomq.ErrRunning], the value every service
	// returns.
	ErrRunning = echomq.ErrRunning
)

// CodecError is a state its projection's codec could not encode (nothing
// was written) or a stored state it could not decode (nothing was loaded);
// it matches [ErrCodec] and unwraps to the codec's error.
type CodecError struct {
	Projection string
	Op         string // "encode" or "decode"
	Err        error
}

func (e *CodecError) Error() string {
	return fmt.Sprintf("echomq: projection %q: %s state: %v", e.Projection, e.Op, e.Err)
}

// Is makes errors.Is(err, ErrCodec) true.
func (e *CodecError) Is(target error) bool { return target == ErrCodec }

// Unwrap returns the codec's error.
func (e *CodecError) Unwrap() error { return e.Err }

// SnapshotError is a stored snapshot that is not in the snapshot format; it
// matches [ErrSnapshot]. Nothing is loaded from it; [Live.Rebuild] replaces it.
type SnapshotError struct {
	Key    string
	Reason string
}

func (e *SnapshotError) Error() string {
	return fmt.Sprintf("echomq: projection snapshot %s: %s", e.Key, e.Reason)
}

// Is makes errors.Is(err, ErrSnapshot) true.
func (e *SnapshotError) Is(target error) bool { return target == ErrSnapshot }

// opError names the operation and the projection an error came from.
func opError(op, name string, err error) error {
	if err == nil {
		return nil
	}
	if name == "" {
		name = "projection"
	}
	return &echomq.OpError{Op: op, Key: name, Err: err}
}

func argError(name, reason string) error {
	return &echomq.ArgumentError{Name: name, Reason: reason}
}

func itoa(n int) string { return strconv.Itoa(n) }

func quote(s string) string { return strconv.Quote(s) }
