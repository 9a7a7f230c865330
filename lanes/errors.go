package lanes

import (
	"errors"
	"fmt"
	"time"

	"github.com/echomq/echomq"
)

// Sentinels callers branch on with errors.Is. Bad input comes back as the
// root package's typed errors: [*echomq.NameError] (a bad queue or lane
// name), [*echomq.KindError] (an id that is not a JOB id) and
// [*echomq.ArgumentError] (a payload over the limit, a negative delay, …).
var (
	// ErrDuplicate: a live job, a dead job or a job completed within the
	// tombstone window already holds the id. See [DuplicateError].
	ErrDuplicate = errors.New("echomq: lanes: duplicate job id")
	// ErrNotFound: no job has the id (never enqueued, deleted, or its
	// tombstone expired). See [NotFoundError].
	ErrNotFound = errors.New("echomq: lanes: job not found")
	// ErrLeaseLost: the claim no longer holds the job: its lease lapsed and
	// the janitor gave it back to its lane (maybe another worker claimed it
	// since), or it was settled already. See [LeaseError].
	ErrLeaseLost = errors.New("echomq: lanes: job no longer held by this claim")
	// ErrWrongState: the job is not in the state the verb acts on (retrying
	// a job that is not dead). See [StateError].
	ErrWrongState = errors.New("echomq: lanes: job in the wrong state")
)

// DuplicateError is an enqueue refused because a row already holds the id;
// State is that job's state (completed for a tombstone). It matches
// [ErrDuplicate].
type DuplicateError struct {
	ID    echomq.ID
	State State
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("echomq: lanes: duplicate job %s: already %s", e.ID, e.State)
}

// Is makes errors.Is(err, ErrDuplicate) true.
func (e *DuplicateError) Is(target error) bool { return target == ErrDuplicate }

// NotFoundError is a job id without a row. It matches [ErrNotFound].
type NotFoundError struct{ ID echomq.ID }

func (e *NotFoundError) Error() string { return fmt.Sprintf("echomq: lanes: job %s not found", e.ID) }

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// LeaseError is a settle, release or extend by a claim that no longer holds
// the job; State is the job's state now. It matches [ErrLeaseLost].
type LeaseError struct {
	ID    echomq.ID
	State State
}

func (e *LeaseError) Error() string {
	return fmt.Sprintf("echomq: lanes: job %s no longer held by this claim (now %s)", e.ID, e.State)
}

// Is makes errors.Is(err, ErrLeaseLost) true.
func (e *LeaseError) Is(target error) bool { return target == ErrLeaseLost }

// StateError is a verb applied to a job in another state than the one it
// acts on. It matches [ErrWrongState].
type StateError struct {
	ID    echomq.ID
	State State
	Want  State
}

func (e *StateError) Error() string {
	return fmt.Sprintf("echomq: lanes: job %s is %s, not %s", e.ID, e.State, e.Want)
}

// Is makes errors.Is(err, ErrWrongState) true.
func (e *StateError) Is(target error) bool { return target == ErrWrongState }

// PanicError is a handler panic, recovered by the worker and treated as a
// failed attempt.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("echomq: lanes: handler panic: %v", e.Value) }

// RetryError is the handler result made by [RetryAfter]: a failed attempt
// retried after After instead of the worker's backoff.
type RetryError struct {
	After time.Duration
	Err   error
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("echomq: lanes: retry after %v: %v", e.After, e.Err)
}

func (e *RetryError) Unwrap() error { return e.Err }

// RetryAfter returns a handler result that fails the attempt with err and
// holds the job's lane for d, whatever the worker's backoff says; the job
// still dies once its attempts are spent. A negative d counts as 0.
func RetryAfter(d time.Duration, err error) error {
	if err == nil {
		err = errors.New("retry requested")
	}
	return &RetryError{After: max(d, 0), Err: err}
}

// CancelError is the handler result made by [Cancel]: the job is given up
// at once and moved to the dead jobs, whatever attempts it has left.
type CancelError struct{ Err error }

func (e *CancelError) Error() string { return fmt.Sprintf("echomq: lanes: cancelled: %v", e.Err) }

func (e *CancelError) Unwrap() error { return e.Err }

// Cancel returns a handler result that gives the job up: it goes to the
// dead jobs at once (its lane moves on to the next job), where it can be
// inspected, retried or deleted.
func Cancel(err error) error {
	if err == nil {
		err = errors.New("cancelled by handler")
	}
	return &CancelError{Err: err}
}

// argError builds the root package's argument error.
func argError(name, reason string) error {
	return &echomq.ArgumentError{Name: name, Reason: reason}
}

// opError records the operation and queue an engine error came from.
func opError(op, key string, err error) error {
	if err == nil {
		return nil
	}
	return &echomq.OpError{Op: "lanes " + op, Key: key, Err: err}
}
