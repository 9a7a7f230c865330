package dcb

import (
	"context"
	"strconv"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// Store reads and appends the tagged events of one queue. It is a cheap
// handle, safe for concurrent use.
type Store struct {
	c     *echomq.Client
	conn  *wire.Conn
	queue string
	keys  wire.DCBKeys
	// The client's append hooks (Append reports to them).
	hooks   []echomq.AppendHook
	prepare []echomq.AppendPrepareHook
}

// New returns the store of queue on client c. A bad queue name is a
// [*echomq.NameError].
func New(c *echomq.Client, queue string) (*Store, error) {
	if err := keyspace.Queue(queue); err != nil {
		return nil, err
	}
	return &Store{c: c, conn: clientconn.Of(c), queue: queue, keys: wire.DCBKeys{
		Prefix: keyspace.DCBPrefix(queue), Pos: keyspace.DCBPosKey(queue), Floor: keyspace.DCBFloorKey(queue),
		Types: keyspace.DCBTypesKey(queue), Cell: keyspace.EngineCellKey(queue),
	}, hooks: echomq.HooksOf[echomq.AppendHook](c), prepare: echomq.HooksOf[echomq.AppendPrepareHook](c)}, nil
}

// Queue returns the queue name.
func (s *Store) Queue() string { return s.queue }

// Head returns the queue's last position: that of its latest tagged event
// (0 when it has none).
func (s *Store) Head(ctx context.Context) (uint64, error) {
	v, ok, err := s.conn.Get(ctx, s.keys.Pos)
	if err != nil || !ok {
		return 0, opError("head", s.queue, err)
	}
	return strconv.ParseUint(v, 10, 64)
}

// Event is a tagged event read by a query: the stream it belongs to (its
// type) and the event, whose Position orders it in the queue.
type Event struct {
	Stream string
	echomq.Event
}

// opError wraps err in an [*echomq.OpError] naming the operation and the
// queue.
func opError(op, queue string, err error) error {
	if err == nil {
		return nil
	}
	return &echomq.OpError{Op: "dcb " + op, Key: queue, Err: err}
}

func positionError(after uint64, kind, stream string, bound uint64) error {
	return &PositionError{After: after, Ahead: kind == "ahead", Stream: stream, Bound: bound}
}
