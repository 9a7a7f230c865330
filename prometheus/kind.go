package emqprom

import (
	"context"
	"errors"

	"github.com/echomq/echomq"
)

// Error kinds of the "kind" label: a closed set, so a label never carries
// an error's text.
const (
	KindInvalid     = "invalid"     // bad input refused before any I/O (names, fields, arguments, ids)
	KindConflict    = "conflict"    // an expected top that did not hold
	KindSkew        = "skew"        // an id or a stream top too far ahead of the engine's clock
	KindWrongType   = "wrongtype"   // the key holds another type
	KindUnavailable = "unavailable" // transport failures, timeouts, a loading or failing-over engine
	KindFull        = "full"        // the engine is at its maxmemory (echomq.ErrEngineFull)
	KindCanceled    = "canceled"    // the caller's context ended
	KindClosed      = "closed"      // the client was closed
	KindServer      = "server"      // any other refusal of the engine
	KindOther       = "other"       // anything else
)

// Kind classifies an error into one of the Kind constants ("" for nil).
func Kind(err error) string {
	var se *echomq.SkewError
	var srv *echomq.ServerError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, echomq.ErrInvalidName), errors.Is(err, echomq.ErrInvalidFields),
		errors.Is(err, echomq.ErrReservedField), errors.Is(err, echomq.ErrInvalidArgument),
		errors.Is(err, echomq.ErrInvalidRange), errors.Is(err, echomq.ErrMalformedID),
		errors.Is(err, echomq.ErrTooLarge):
		return KindInvalid
	case errors.Is(err, echomq.ErrConflict):
		return KindConflict
	case errors.As(err, &se):
		return KindSkew
	case errors.Is(err, echomq.ErrWrongType):
		return KindWrongType
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return KindCanceled
	case errors.Is(err, echomq.ErrUnavailable):
		return KindUnavailable
	case errors.Is(err, echomq.ErrEngineFull):
		return KindFull
	case errors.Is(err, echomq.ErrClosed):
		return KindClosed
	case errors.As(err, &srv):
		return KindServer
	}
	return KindOther
}
