package echomq

import (
	"errors"
	"fmt"
)

// Sentinels of the consumer-group verbs; callers branch on them with
// errors.Is.
var (
	// ErrConsumerPending: a consumer still owns pending entries, so removing
	// it would drop them from the group. See [ConsumerPendingError].
	ErrConsumerPending = errors.New("echomq: consumer owns pending entries")
	// ErrDeadLetterNotFound: no dead letter has that id (never written,
	// replayed or purged meanwhile).
	ErrDeadLetterNotFound = errors.New("echomq: dead letter not found")
	// ErrInFlight: another delivery of the same record is being handled
	// under the same [Once] scope right now; the entry stays pending and is
	// delivered again later.
	ErrInFlight = errors.New("echomq: record is being handled by another delivery")
)

// ConsumerPendingError is a consumer that cannot be removed yet because it
// owns Pending entries; claim them for another consumer first
// ([Group.Claim]). It matches [ErrConsumerPending].
type ConsumerPendingError struct {
	Group    string
	Consumer string
	Pending  int64
}

func (e *ConsumerPendingError) Error() string {
	return fmt.Sprintf("echomq: consumer %q of group %q owns %d pending entries: claim them for another consumer before removing it", e.Consumer, e.Group, e.Pending)
}

// Is makes errors.Is(err, ErrConsumerPending) true.
func (e *ConsumerPendingError) Is(target error) bool { return target == ErrConsumerPending }

// PanicError is a handler panic, recovered by the consumer and treated as a
// failed delivery (the entry stays pending).
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("echomq: handler panic: %v", e.Value) }
