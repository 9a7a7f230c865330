// Package clientconn hands the engine connection of an *echomq.Client to the
// feature packages of this module (lanes, archive, …) without making it part
// of the public API: the root package registers the accessor at init, and
// only packages inside the module can import this one.
package clientconn

import "github.com/echomq/echomq/internal/wire"

// Of returns the connection of an *echomq.Client. The root package sets it
// in its init; it panics for any other type.
var Of func(client any) *wire.Conn
