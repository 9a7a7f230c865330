package retention

import (
	"errors"
	"fmt"
)

// ErrArchived is matched by every [*ArchivedError]: the stream is under the
// archive's control, and only the archiver trims it.
var ErrArchived = errors.New("retention: stream is under archive control")

// ArchivedError refuses a policy whose stream is under the archive's
// control; nothing was trimmed.
type ArchivedError struct {
	Queue, Stream string
	// Reason says what marks the stream: its archive watermark, or the
	// lease of a running archiver.
	Reason string
}

func (e *ArchivedError) Error() string {
	return fmt.Sprintf("retention: %s/%s is under archive control (%s): only the archiver trims it", e.Queue, e.Stream, e.Reason)
}

// Is makes errors.Is(err, ErrArchived) true.
func (e *ArchivedError) Is(target error) bool { return target == ErrArchived }
