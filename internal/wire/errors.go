package wire

import (
	"context"
	"errors"
	"strings"

	"github.com/valkey-io/valkey-go"
)

// Sentinels the public packages re-export; server replies map onto them
// through [ServerError.Is].
var (
	ErrNonMonotonic  = errors.New("echomq: id is not above the stream top")
	ErrWrongType     = errors.New("echomq: key holds the wrong type")
	ErrGroupExists   = errors.New("echomq: consumer group already exists")
	ErrGroupNotFound = errors.New("echomq: consumer group not found")
	ErrNoScript      = errors.New("echomq: script not loaded")
	ErrClosed        = errors.New("echomq: client closed")
	ErrEngineFull    = errors.New("echomq: engine full")
	ErrPermission    = errors.New("echomq: permission denied")
)

// nonMonotonicMsg is the exact server text for an XADD id at or below the
// stream's last generated id; the interop contract depends on it.
const nonMonotonicMsg = "ERR The ID specified in XADD is equal or smaller than the target stream top item"

// ServerError is an error reply from the engine: its first word (the prefix,
// e.g. WRONGTYPE, ERR, BUSYGROUP) and the whole message.
type ServerError struct {
	Prefix  string
	Message string
}

func (e *ServerError) Error() string { return "echomq: server: " + e.Message }

// Is maps well-known replies onto sentinels.
func (e *ServerError) Is(target error) bool {
	switch target {
	case ErrWrongType:
		return e.Prefix == "WRONGTYPE"
	case ErrNonMonotonic:
		return e.Message == nonMonotonicMsg
	case ErrGroupExists:
		return e.Prefix == "BUSYGROUP"
	case ErrGroupNotFound:
		return e.Prefix == "NOGROUP"
	case ErrNoScript:
		return e.Prefix == "NOSCRIPT"
	case ErrPermission:
		return e.Prefix == "NOPERM"
	case ErrUnavailable:
		return transientPrefix(e.Prefix)
	}
	return false
}

// EngineFullError is the engine's OOM reply: its used memory is above its
// maxmemory and, under the noeviction policy, it refuses every command
// that may add memory until something frees some. It is permanent for the
// call (retrying at once only fails again), not a transient failure: it
// matches [ErrEngineFull], never [ErrUnavailable].
type EngineFullError struct {
	// Message is the engine's reply.
	Message string
	// UsedMemory and MaxMemory are the engine's figures at the client's
	// last reading (Connect, then its engine watcher), when the call that
	// met the reply knew them; 0 when not known.
	UsedMemory, MaxMemory int64
}

func (e *EngineFullError) Error() string {
	return "echomq: engine full: " + e.Message + " (appends are refused until archiving, trimming or acknowledging frees memory, or maxmemory is raised)"
}

// Is makes errors.Is(err, ErrEngineFull) true.
func (e *EngineFullError) Is(target error) bool { return target == ErrEngineFull }

// transientPrefix reports the error replies of an engine that is loading,
// busy or failing over: they pass by themselves. UNBLOCKED ends a blocking
// read (XREAD BLOCK, a lanes wait) whose master turned replica in a
// failover: the read is asked again of the new master.
func transientPrefix(p string) bool {
	switch p {
	case "LOADING", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "READONLY", "UNBLOCKED":
		return true
	}
	return false
}

// convert turns a valkey-go error into one of ours: a [*ServerError] for a
// reply, [ErrClosed] for a closed client, context errors unchanged.
func convert(err error) error {
	if err == nil {
		return nil
	}
	if ve, ok := valkey.IsValkeyErr(err); ok {
		// Copy: the reply's bytes belong to the connection's buffer.
		msg := strings.Clone(ve.Error())
		prefix, _, _ := strings.Cut(msg, " ")
		if !isPrefix(prefix) {
			// The client strips the generic "ERR " prefix; put it back so
			// the message is the server's text.
			prefix, msg = "ERR", "ERR "+msg
		}
		if prefix == "OOM" {
			return &EngineFullError{Message: msg}
		}
		return &ServerError{Prefix: prefix, Message: msg}
	}
	if errors.Is(err, valkey.ErrClosing) {
		return ErrClosed
	}
	if toe, ok := errors.AsType[*TimeoutError](err); ok {
		return toe
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &TransportError{Err: err}
}

// isPrefix reports whether w looks like an error class: upper-case letters.
func isPrefix(w string) bool {
	if len(w) < 2 {
		return false
	}
	for i := range len(w) {
		if w[i] < 'A' || w[i] > 'Z' {
			return false
		}
	}
	return true
}

// TransportError is a failure to talk to the engine at all: a dial, a
// broken connection, a timeout of the socket.
type TransportError struct{ Err error }

func (e *TransportError) Error() string { return "echomq: transport: " + e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// IsNil reports whether err is the engine's nil reply.
func isNil(err error) bool { return valkey.IsValkeyNil(err) }

// Transient reports whether an engine failure may pass by itself: a broken
// or slow connection, or an engine that is loading, busy or failing over.
// It is the one place that knows which error replies are passing ones.
//
// It is [ErrUnavailable] plus a deadline of the caller's context (a
// service's own per-beat deadline passing is a passing failure too).
func Transient(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)
}
