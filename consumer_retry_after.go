package echomq

import (
	"errors"
	"fmt"
	"time"
)

// ErrRetry matches every [*RetryError].
var ErrRetry = errors.New("echomq: retry requested")

// RetryError is a handler's request to see an entry again after Delay,
// without waiting for the group's MinIdle: return [RetryAfter] (or wrap one).
// The entry stays pending under the consumer and is marked idle so that the
// first reclaim after Delay (rounded up to the next Beat) takes it; the
// redelivery counts as a delivery, so MaxDeliveries still ends a loop of
// retries in the dead letters. A Delay at or above MinIdle is the ordinary
// retry (after MinIdle); a Delay at or below zero retries at the next Beat.
type RetryError struct {
	Delay time.Duration
	Err   error // the cause, if any
}

// RetryAfter returns the error a handler returns to be redelivered after d.
func RetryAfter(d time.Duration) error { return &RetryError{Delay: d} }

func (e *RetryError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("echomq: retry after %s: %v", e.Delay, e.Err)
	}
	return "echomq: retry after " + e.Delay.String()
}

// Is makes errors.Is(err, ErrRetry) true.
func (e *RetryError) Is(target error) bool { return target == ErrRetry }

// Unwrap returns the cause.
func (e *RetryError) Unwrap() error { return e.Err }
