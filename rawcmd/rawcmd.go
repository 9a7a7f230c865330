// Package rawcmd is the escape hatch of EchoMQ: it runs a raw engine
// command on a client's connection. It is for debugging and tests (to
// inspect or break a key the way an operator would): EchoMQ's verbs never
// need it, and keys written through it are outside the keyspace registry
// (docs/keyspace.md). A program that reaches for it in production is
// missing a verb; ask for one.
package rawcmd

import (
	"context"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
)

// Do runs a raw engine command on c's connection and returns its reply as
// Go values (string, int64, []any, map[string]any, nil for a nil reply).
// The second word is taken as the key for cluster routing. It returns
// [echomq.ErrClosed] after c was closed, and the engine's errors.
func Do(ctx context.Context, c *echomq.Client, args ...string) (any, error) {
	if clientconn.Closed(c) {
		return nil, echomq.ErrClosed
	}
	conn := clientconn.Of(c)
	if len(args) >= 2 {
		return conn.RawKeyed(ctx, args[0], args[1], args[2:]...)
	}
	return conn.Raw(ctx, args...)
}
