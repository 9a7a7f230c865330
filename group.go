package echomq

import (
	"context"
	"fmt"

	"github.com/echomq/echomq/internal/keyspace"
)

// Start is where a new consumer group begins reading its stream. There is
// no default: the zero Start is refused, so every group is created with a
// deliberate choice.
type Start int

const (
	// StartNew makes a new group read only entries appended after it was
	// created (XGROUP CREATE … $).
	StartNew Start = iota + 1
	// StartHead makes a new group read the stream from its oldest entry
	// (XGROUP CREATE … 0).
	StartHead
)

// String returns "new" or "head".
func (s Start) String() string {
	switch s {
	case StartNew:
		return "new"
	case StartHead:
		return "head"
	}
	return fmt.Sprintf("Start(%d)", int(s))
}

func (s Start) entryID() (string, error) {
	switch s {
	case StartNew:
		return "$", nil
	case StartHead:
		return "0", nil
	}
	return "", &ArgumentError{Name: "start", Reason: "must be StartNew or StartHead"}
}

// Group is one consumer group of one stream: the handle of the group
// administration verbs. Consumers that read through it are made with
// [Client.Consumer]. A Group is a cheap handle, safe for concurrent use.
//
// Bad names are caught when the handle is made: the queue and stream follow
// the stream grammar, and group names the same grammar
// [A-Za-z0-9._-]{1,128}; every verb of a bad handle returns the
// [*NameError] before any I/O.
type Group struct {
	s    *Stream
	name string
	err  error
}

// Group returns the handle of consumer group name of stream in queue.
func (c *Client) Group(queue, stream, name string) *Group {
	return c.Stream(queue, stream).Group(name)
}

// Group returns the handle of the stream's consumer group name.
func (s *Stream) Group(name string) *Group {
	g := &Group{s: s, name: name, err: s.err}
	if g.err == nil {
		g.err = keyspace.Name("group", name)
	}
	return g
}

// Err returns the [*NameError] of a handle made from a bad name, or nil.
func (g *Group) Err() error { return g.err }

// Name returns the group name.
func (g *Group) Name() string { return g.name }

// Stream returns the handle of the group's stream.
func (g *Group) Stream() *Stream { return g.s }

// Create creates the group at start (XGROUP CREATE … MKSTREAM, so the empty
// stream is created when it does not exist yet) and reports whether it did:
// an existing group is not an error (created is false, and its read
// position is left as it was). Errors: the handle's [*NameError] and an
// [*ArgumentError] for a zero start (before any I/O); [ErrWrongType] when
// the key holds something other than a stream; [ErrClosed]; context errors;
// [*ServerError]; [*TransportError].
func (g *Group) Create(ctx context.Context, start Start) (created bool, err error) {
	if g.err != nil {
		return false, opError("group create", g.s.key, g.err)
	}
	id, err := start.entryID()
	if err != nil {
		return false, opError("group create", g.s.key, err)
	}
	created, err = g.s.c.conn.XGroupCreate(ctx, g.s.key, g.name, id)
	return created, opError("group create", g.s.key, err)
}

// checkConsumer validates a consumer name: the name grammar.
func checkConsumer(name string) error { return keyspace.Name("consumer", name) }
