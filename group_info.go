package echomq

import (
	"context"
	"time"

	"github.com/echomq/echomq/internal/wire"
)

// GroupInfo describes one consumer group of a stream.
type GroupInfo struct {
	Name string
	// Pending is the number of entries delivered to the group's consumers
	// and not acknowledged yet.
	Pending int64
	// LastDelivered is the id of the newest entry handed out to the group;
	// entries above it are new to the group.
	LastDelivered EntryID
	// EntriesRead is how many entries the group has read, and Lag how many
	// it still has to read; both are -1 when the engine cannot tell (an
	// engine before Redis 7, or a lag made unknowable by deletions).
	EntriesRead int64
	Lag         int64
	// Consumers are the group's consumers with what each holds.
	Consumers []ConsumerInfo
}

// ConsumerInfo describes one consumer of a group.
type ConsumerInfo struct {
	Name string
	// Pending is the number of entries the consumer owns and has not
	// acknowledged.
	Pending int64
	// Idle is the time since the consumer last read or claimed.
	Idle time.Duration
	// Inactive is the time since the consumer's last successful read or
	// claim, -1 when the engine does not report it (before Redis 7.2).
	Inactive time.Duration
}

// Groups returns the consumer groups of the stream with their consumers, in
// the engine's order; a missing stream has none. Errors: the handle's
// [*NameError] (before any I/O), [ErrWrongType], [ErrClosed], context
// errors, [*ServerError], [*TransportError].
func (s *Stream) Groups(ctx context.Context) ([]GroupInfo, error) {
	if s.err != nil {
		return nil, opError("groups", s.key, s.err)
	}
	rows, err := s.c.conn.XInfoGroups(ctx, s.key)
	if err != nil {
		return nil, opError("groups", s.key, err)
	}
	out := make([]GroupInfo, 0, len(rows))
	for _, r := range rows {
		gi, err := s.groupInfo(ctx, r)
		if err != nil {
			return nil, opError("groups", s.key, err)
		}
		out = append(out, gi)
	}
	return out, nil
}

func (s *Stream) groupInfo(ctx context.Context, r wire.GroupRow) (GroupInfo, error) {
	gi := GroupInfo{Name: r.Name, Pending: r.Pending, EntriesRead: r.EntriesRead, Lag: r.Lag}
	if r.LastDeliveredID != "" {
		var err error
		if gi.LastDelivered, err = ParseEntryID(r.LastDeliveredID); err != nil {
			return GroupInfo{}, err
		}
	}
	cs, err := s.c.conn.XInfoConsumers(ctx, s.key, r.Name)
	if err != nil {
		return GroupInfo{}, err
	}
	gi.Consumers = make([]ConsumerInfo, len(cs))
	for i, c := range cs {
		gi.Consumers[i] = ConsumerInfo{Name: c.Name, Pending: c.Pending, Idle: c.Idle, Inactive: c.Inactive}
	}
	return gi, nil
}

// Info returns the group's state: pending count, last delivered id, lag and
// its consumers with their pending counts and idle times. Errors: the
// handle's [*NameError] (before any I/O), [ErrGroupNotFound] when the
// stream has no such group, others as [Stream.Groups].
func (g *Group) Info(ctx context.Context) (GroupInfo, error) {
	r, err := g.row(ctx)
	if err != nil {
		return GroupInfo{}, opError("group info", g.s.key, err)
	}
	gi, err := g.s.groupInfo(ctx, r)
	return gi, opError("group info", g.s.key, err)
}

// row returns the group's XINFO GROUPS row: the handle's name error, or a
// NOGROUP [*ServerError] when the stream has no such group.
func (g *Group) row(ctx context.Context) (wire.GroupRow, error) {
	if g.err != nil {
		return wire.GroupRow{}, g.err
	}
	rows, err := g.s.c.conn.XInfoGroups(ctx, g.s.key)
	if err != nil {
		return wire.GroupRow{}, err
	}
	for _, r := range rows {
		if r.Name == g.name {
			return r, nil
		}
	}
	return wire.GroupRow{}, &wire.ServerError{Prefix: "NOGROUP", Message: "NOGROUP no consumer group " + g.name}
}

// PendingOpts select the entries [Group.Pending] lists; nil means the
// defaults.
type PendingOpts struct {
	// Range limits the entry ids. Defaults to [All].
	Range Range
	// Consumer lists only the entries that consumer owns. Defaults to "":
	// every consumer.
	Consumer string
	// MinIdle lists only entries idle at least that long. Defaults to 0.
	MinIdle time.Duration
	// Count caps the rows. Defaults to 100.
	Count int
}

// PendingEntry is one entry delivered to a consumer and not acknowledged.
type PendingEntry struct {
	Entry    EntryID
	Consumer string
	// Idle is the time since the entry was last delivered.
	Idle time.Duration
	// Deliveries is how many times it was delivered (the Attempts its next
	// delivery reports is one more).
	Deliveries int64
}

// Pending lists pending entries of the group in entry-id order. Errors: the
// handle's [*NameError], [*ArgumentError] for a negative count or min idle
// or a bad consumer name, [*RangeError] for an inverted range (all before
// any I/O); [ErrGroupNotFound]; others as [Stream.Groups].
func (g *Group) Pending(ctx context.Context, opts *PendingOpts) ([]PendingEntry, error) {
	q, err := g.pendingQuery(opts)
	if err != nil {
		return nil, opError("pending", g.s.key, err)
	}
	rows, err := g.s.c.conn.XPending(ctx, g.s.key, g.name, q)
	if err != nil {
		return nil, opError("pending", g.s.key, err)
	}
	out := make([]PendingEntry, len(rows))
	for i, r := range rows {
		e, err := ParseEntryID(r.ID)
		if err != nil {
			return nil, opError("pending", g.s.key, err)
		}
		out[i] = PendingEntry{Entry: e, Consumer: r.Consumer, Idle: r.Idle, Deliveries: r.Deliveries}
	}
	return out, nil
}

func (g *Group) pendingQuery(opts *PendingOpts) (wire.PendingRange, error) {
	if g.err != nil {
		return wire.PendingRange{}, g.err
	}
	o := PendingOpts{Count: 100}
	if opts != nil {
		o = *opts
		if o.Count == 0 {
			o.Count = 100
		}
	}
	switch {
	case o.Count < 0:
		return wire.PendingRange{}, &ArgumentError{Name: "count", Reason: "must not be negative"}
	case o.MinIdle < 0:
		return wire.PendingRange{}, &ArgumentError{Name: "min idle", Reason: "must not be negative"}
	}
	if o.Consumer != "" {
		if err := checkConsumer(o.Consumer); err != nil {
			return wire.PendingRange{}, err
		}
	}
	if err := o.Range.Validate(); err != nil {
		return wire.PendingRange{}, err
	}
	return wire.PendingRange{From: o.Range.From.lower(), To: o.Range.To.upper(), Count: int64(o.Count), Consumer: o.Consumer, MinIdle: o.MinIdle}, nil
}
