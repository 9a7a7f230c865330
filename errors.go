package echomq

import (
	"errors"
	"fmt"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/nodelease"
	"github.com/echomq/echomq/internal/startstop"
	"github.com/echomq/echomq/internal/wire"
)

// Sentinels callers branch on with errors.Is. Context cancellation and
// deadlines come back as context.Canceled and context.DeadlineExceeded.
var (
	// ErrInvalidName: a queue or stream name broke the grammar
	// [A-Za-z0-9._-]{1,128} (or a queue is named "emq"). See [NameError].
	ErrInvalidName = keyspace.ErrInvalidName
	// ErrReservedField: a payload names the field "id", which holds the
	// record's branded id, or a field beginning with "@" (the library's fields: a tagged event's "@pos" and "@tags"). See
	// [FieldError].
	ErrReservedField = errors.New("echomq: reserved field")
	// ErrInvalidFields: a payload is not a list of name/value pairs.
	ErrInvalidFields = errors.New("echomq: invalid fields")
	// ErrMalformedID: a string is not a branded id, entry id or bound. See
	// [IDError].
	ErrMalformedID = errors.New("echomq: malformed id")
	// ErrWrongKind: a well-formed id carries a brand the operation does not
	// admit (a stream admits only EVT). See [KindError].
	ErrWrongKind = errors.New("echomq: wrong id kind")
	// ErrConflict: a write's precondition did not hold. An append's
	// expected top was not the stream's top ([ConflictError]), an event
	// matching a conditional append's query lies after its position
	// (package dcb, its ConflictError), or a
	// transaction of package tables kept meeting concurrent writes to what
	// it read and gave up after its attempts.
	ErrConflict = errors.New("echomq: conflict")
	// ErrNonMonotonic: an appended id is not above the stream's last id.
	ErrNonMonotonic = wire.ErrNonMonotonic
	// ErrWrongType: the key holds a value of another type than the
	// operation needs (WRONGTYPE).
	ErrWrongType = wire.ErrWrongType
	// ErrInvalidRange: a range whose lower bound is above its upper bound,
	// such as a time window that ends before it starts. See [RangeError].
	ErrInvalidRange = errors.New("echomq: invalid range")
	// ErrInvalidArgument: a count, length or option out of its domain. See
	// [ArgumentError].
	ErrInvalidArgument = errors.New("echomq: invalid argument")
	// ErrClosed: the client was closed.
	ErrClosed = wire.ErrClosed
	// ErrGroupExists: a consumer group of that name already exists.
	ErrGroupExists = wire.ErrGroupExists
	// ErrGroupNotFound: no consumer group of that name exists.
	ErrGroupNotFound = wire.ErrGroupNotFound
	// ErrRunning: a long-running service ([Consumer], lanes.Worker,
	// projection.Live, archive.Archiver, retention.Driver) was asked to run
	// while it runs. Every service returns this one value.
	ErrRunning = startstop.ErrRunning
	// ErrNoEngine: [Connect] was not told which engine to use: Config.URL
	// is empty, or names the embedded engine in a program that does not
	// link it.
	ErrNoEngine = errors.New("echomq: no engine: set Config.URL to redis://host:port (or rediss://, valkey://, unix://), " +
		"or to embedded.URL from package github.com/echomq/echomq/embedded for an in-process engine that keeps nothing")
	// ErrUnavailable: the engine could not serve the call now, and may
	// later: it cannot be reached or did not answer within
	// Config.CallTimeout ([*TransportError], [*TimeoutError]), or it is
	// loading, busy or failing over (a [*ServerError] such as LOADING,
	// MASTERDOWN, CLUSTERDOWN, TRYAGAIN, READONLY, and UNBLOCKED ending a
	// blocking read when its master turned replica), or the client's node
	// id lease lapsed and minting waits for a new one
	// ([ErrNodeLeaseLapsed]). Retrying later is safe for reads; an append
	// that failed this way may or may not have been written (use
	// AppendOpts.Key to retry it without a duplicate). Permanent errors
	// (bad input, [ErrWrongType], [ErrClosed], a [*ServerError] of another
	// kind) never match it, nor do the caller's own context errors.
	ErrUnavailable = wire.ErrUnavailable
	// ErrContention: an append lost the race for the stream top to other
	// writers more times than its retry budget allows.
	ErrContention = errors.New("echomq: append contention")
	// ErrPermission: the engine's ACL refused a command or a key to the
	// connection's user (a NOPERM reply, whose text, in the error, names
	// the command or key). A user confined to its queues' keys
	// (docs/tenants.md) meets it for another queue's keys.
	ErrPermission = wire.ErrPermission
	// ErrNoFreeNode: every writer node id (0..1022) of the queue is leased
	// by another client, so this one cannot mint for the queue; node ids
	// are leased per queue, so other queues are unaffected.
	ErrNoFreeNode = nodelease.ErrExhausted
)

// NameError says which name broke which rule; it matches [ErrInvalidName].
type NameError = keyspace.NameError

// CheckName checks a name of the given kind ("queue", "stream", "group",
// "consumer", ...) against the name grammar, before any I/O, as every verb
// does: [A-Za-z0-9._-]{1,128}, and for kind "queue" not the reserved "emq".
// It returns a [*NameError] naming kind, or nil. It lets a tool refuse a bad
// name before it connects.
func CheckName(kind, name string) error {
	if kind == "queue" {
		return keyspace.Queue(name)
	}
	return keyspace.Name(kind, name)
}

// ServerError is an error reply from the engine; well-known replies match
// [ErrWrongType], [ErrNonMonotonic], [ErrGroupExists] and [ErrGroupNotFound].
type ServerError = wire.ServerError

// TransportError is a failure to reach the engine (dial, broken
// connection); it matches [ErrUnavailable].
type TransportError = wire.TransportError

// TimeoutError is a call the engine did not answer within
// Config.CallTimeout; it matches [ErrUnavailable], and its Err is the last
// failure seen meanwhile (nil when the engine was silent).
type TimeoutError = wire.TimeoutError

// IDError says why a string is not a valid id; it matches [ErrMalformedID].
type IDError struct {
	Input  string
	Reason string
}

func (e *IDError) Error() string {
	if e.Input == "" {
		return "echomq: malformed id: " + e.Reason
	}
	return fmt.Sprintf("echomq: malformed id %q: %s", e.Input, e.Reason)
}

// Is makes errors.Is(err, ErrMalformedID) true.
func (e *IDError) Is(target error) bool { return target == ErrMalformedID }

// KindError is a well-formed id of a brand the operation does not admit; it
// matches [ErrWrongKind].
type KindError struct {
	Want, Got string
}

func (e *KindError) Error() string {
	return fmt.Sprintf("echomq: wrong id kind %s: want %s", e.Got, e.Want)
}

// Is makes errors.Is(err, ErrWrongKind) true.
func (e *KindError) Is(target error) bool { return target == ErrWrongKind }

// FieldError is a payload that cannot be appended: a reserved field name
// (matches [ErrReservedField]) or an odd number of strings (matches
// [ErrInvalidFields]).
type FieldError struct {
	Field  string
	Reason string
	err    error
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return "echomq: invalid fields: " + e.Reason
	}
	return fmt.Sprintf("echomq: field %q: %s", e.Field, e.Reason)
}

// Is matches the sentinel the error was built for.
func (e *FieldError) Is(target error) bool { return target == e.err }

// RangeError is a range whose lower bound lies above its upper bound; it
// matches [ErrInvalidRange].
type RangeError struct {
	From, To string
	// Reason says what is wrong when it is not an inverted range (a bound
	// no entry id can satisfy).
	Reason string
}

func (e *RangeError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("echomq: invalid range %s..%s: %s", e.From, e.To, e.Reason)
	}
	return fmt.Sprintf("echomq: invalid range: %s is above %s", e.From, e.To)
}

// Is makes errors.Is(err, ErrInvalidRange) true.
func (e *RangeError) Is(target error) bool { return target == ErrInvalidRange }

// ArgumentError is an argument out of its domain; it matches
// [ErrInvalidArgument].
type ArgumentError struct {
	Name   string
	Reason string
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("echomq: invalid %s: %s", e.Name, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidArgument) true.
func (e *ArgumentError) Is(target error) bool { return target == ErrInvalidArgument }

// opError prefixes an operation and its stream to err, keeping it matchable.
// sentinelAnd is the Unwrap of an error type that matches a sentinel and
// wraps a cause: errors.Is and errors.As walk both; a nil cause is left
// out.
func sentinelAnd(sentinel, cause error) []error {
	if cause == nil {
		return []error{sentinel}
	}
	return []error{sentinel, cause}
}

func opError(op, key string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Key: key, Err: err}
}

// OpError records the operation and key an error came from; errors.Is and
// errors.As see through it to the cause.
type OpError struct {
	Op  string
	Key string
	Err error
}

func (e *OpError) Error() string {
	return "echomq: " + e.Op + " " + e.Key + ": " + trimPrefix(e.Err.Error())
}
func (e *OpError) Unwrap() error { return e.Err }

func trimPrefix(s string) string {
	const p = "echomq: "
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}
