package echomq

import (
	"context"
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

// failedNow settles the failures that do not wait for MinIdle, and reports
// whether it did: a [*DecodeError] goes to the dead letters at once (it
// can never succeed), a [*RetryError] below the delivery limit is marked
// idle so the next reclaim after its delay takes it.
func (r *run) failedNow(j *job, err error, limit int64) bool {
	if limit > 0 && errors.Is(err, ErrDecode) {
		r.deadLetter(j, err.Error())
		return true
	}
	var re *RetryError
	if !errors.As(err, &re) || (limit > 0 && j.d.Attempts >= limit) {
		return false
	}
	c := r.c
	idle := c.cfg.MinIdle - max(re.Delay, 0)
	if idle <= 0 {
		return false // the ordinary retry after MinIdle
	}
	ctx, cancel := context.WithTimeout(r.io, settleTimeout)
	defer cancel()
	if _, rerr := c.c.conn.Release(ctx, c.s.key, c.cfg.Group, c.cfg.Name, idle, []string{j.id}); rerr != nil {
		c.log.Warn("retry-after mark failed; entry is retried after MinIdle", "entry", j.id, "err", rerr)
		return true
	}
	c.log.Debug("handler asked for a retry", "entry", j.id, "attempts", j.d.Attempts, "after", re.Delay)
	return true
}
