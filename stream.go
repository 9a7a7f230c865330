package echomq

import (
	"context"

	"github.com/echomq/echomq/internal/keyspace"
)

// Stream is one named stream of one queue: the channel of one event type.
// Appending creates it. A Stream is a cheap handle, safe for concurrent use.
//
// Bad names are caught when the handle is made: every verb of a Stream made
// from a bad queue or stream name returns the [*NameError] before any I/O,
// and [Stream.Err] reports it at once.
type Stream struct {
	c     *Client
	queue string
	name  string
	key   string
	err   error
}

// Stream returns the handle of stream name in queue. Names match
// [A-Za-z0-9._-]{1,128}; a queue may not be named "emq".
func (c *Client) Stream(queue, name string) *Stream {
	s := &Stream{c: c, queue: queue, name: name}
	if err := keyspace.Queue(queue); err != nil {
		s.err = err
	} else if err := keyspace.Stream(name); err != nil {
		s.err = err
	} else {
		s.key = keyspace.StreamKey(queue, name)
	}
	return s
}

// Err returns the [*NameError] of a handle made from a bad name, or nil.
func (s *Stream) Err() error { return s.err }

// Queue returns the queue name.
func (s *Stream) Queue() string { return s.queue }

// Name returns the stream name.
func (s *Stream) Name() string { return s.name }

// Key returns the engine key "emq:{queue}:stream:name" ("" for a bad name).
func (s *Stream) Key() string { return s.key }

// Client returns the client the handle belongs to.
func (s *Stream) Client() *Client { return s.c }

// ready returns the error every verb checks before it validates its
// arguments: the handle's name error. A closed client and an ended context
// are reported by the engine call itself, after validation, so bad input is
// always refused the same way.
func (s *Stream) ready(context.Context) error { return s.err }
