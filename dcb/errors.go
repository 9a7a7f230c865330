package dcb

import (
	"errors"
	"fmt"

	"github.com/echomq/echomq"
)

// ErrPosition means a read or a condition started from a position the
// index cannot answer for: below the floor of a stream it touches (events after
// the position were trimmed, with their index entries, by Stream.Trim,
// retention or an archive cycle), or above the queue's head. It is never
// treated as "nothing since". See [PositionError].
var ErrPosition = errors.New("dcb: position out of the index's reach")

// PositionError is a refused position; it matches [ErrPosition].
type PositionError struct {
	// After is the position refused.
	After uint64
	// Ahead is true when After lies above the queue's head (Bound): a
	// position saved in another life of the queue. Otherwise Stream's
	// floor is Bound: events of Stream at positions up to Bound were
	// trimmed; read again from Bound or later (a fresh decision reads from
	// 0 and meets the floor only when its events themselves were trimmed).
	Ahead  bool
	Stream string
	Bound  uint64
}

func (e *PositionError) Error() string {
	if e.Ahead {
		return fmt.Sprintf("dcb: position %d is above the queue's head %d", e.After, e.Bound)
	}
	return fmt.Sprintf("dcb: position %d is below the floor %d of stream %s (its events up to the floor were trimmed)", e.After, e.Bound, e.Stream)
}

// Is makes errors.Is(err, ErrPosition) true.
func (e *PositionError) Is(target error) bool { return target == ErrPosition }

// ConflictError is a conditional append refused because an event matching
// its condition's query lies after the condition's position; nothing was
// written. It names the first such event and matches echomq.ErrConflict.
type ConflictError struct {
	After    uint64 // the condition's position
	Stream   string // the conflicting event's stream
	ID       echomq.ID
	Entry    echomq.EntryID
	Position uint64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("dcb: conflict: %s %s at position %d matches the condition's query after position %d", e.Stream, e.ID, e.Position, e.After)
}

// Is makes errors.Is(err, echomq.ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == echomq.ErrConflict }
