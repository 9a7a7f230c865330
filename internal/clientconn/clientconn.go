// Package clientconn hands the engine connection of an *echomq.Client to the
// feature packages of this module (lanes, archive, …) without making it part
// of the public API: the root package registers the accessor at init, and
// only packages inside the module can import this one.
package clientconn

import (
	"context"

	"github.com/echomq/echomq/internal/wire"
)

// Of returns the connection of an *echomq.Client. The root package sets it
// in its init; it panics for any other type.
var Of func(client any) *wire.Conn

// CheckAppend checks the fields of an append to the stream at key against
// the client's limits (Config.MaxBulkBytes, the field grammar) and the
// stream's budget, before any I/O: what Stream.Append checks, for a
// transaction's append. The root package sets it in its init.
var CheckAppend func(client any, key string, fields []string) error

// MintAbove mints an EVT id of the client in queue above floor (an
// echomq.EntryID; the zero one for none), moving the queue's minter past
// it when needed, within the client's MaxSkew of the engine's clock. It
// returns an echomq.ID. The root package sets it in its init.
var MintAbove func(ctx context.Context, client any, queue string, floor any) (any, error)

// Closed reports whether the client was closed. The root package sets it
// in its init.
var Closed func(client any) bool

// AppendTiming returns the client's Config.MaxSkew and the lead the
// append script keeps proposals within, in milliseconds, and its
// Config.DedupeWindow. The root package sets it in its init.
var AppendTiming func(client any) (maxSkewMs, leadMs, dedupeMs int64)

// DecodeEvent decodes an entry read from a stream into an echomq.Event
// (its receipt, tags, position and payload). The root package sets it in
// its init.
var DecodeEvent func(e wire.Entry) (any, error)

// DCBAppend appends one group of tagged events of queue (with its
// condition) through the client's group committer of the queue, which
// shares one script call among concurrent groups. It returns the group's
// result and the engine's clock (Unix µs) of the call. The root package
// sets it in its init.
var DCBAppend func(ctx context.Context, client any, queue string, g wire.DCBGroup) (wire.DCBResult, int64, error)
