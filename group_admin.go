package echomq

import (
	"context"
	"time"
)

// ClaimOpts select the entries [Group.Claim] moves; nil means the defaults.
type ClaimOpts struct {
	// IDs are the entries to move. Defaults to nil: the pending entries
	// selected by From, MinIdle and Count, oldest first.
	IDs []EntryID
	// From moves only entries that consumer owns. Defaults to "": any.
	From string
	// MinIdle moves only entries idle at least that long; the engine checks
	// it again at the move, so an entry a live consumer touched meanwhile
	// stays where it is. Defaults to 0.
	MinIdle time.Duration
	// Count caps how many entries are selected when IDs is empty. Defaults
	// to 100.
	Count int
}

// Claim makes consumer to the owner of pending entries (XCLAIM … JUSTID):
// the operator's move of a dead consumer's backlog to a live one, or to a
// name that a consumer will be started under. The move is not a delivery:
// delivery counts stay as they were and the entries' idle times restart.
// The new owner delivers them when it drains its pending list (at start) or
// reclaims them (once idle for its MinIdle). It returns the entries moved;
// entries no longer pending, or not idle enough, are left out.
//
// Errors: the handle's [*NameError] and a bad consumer name ([*NameError]),
// [*ArgumentError] for a negative count or min idle (all before any I/O);
// [ErrGroupNotFound]; [ErrWrongType]; [ErrClosed]; context errors;
// [*ServerError]; [*TransportError].
func (g *Group) Claim(ctx context.Context, to string, opts *ClaimOpts) ([]EntryID, error) {
	var o ClaimOpts
	if opts != nil {
		o = *opts
	}
	q, err := g.pendingQuery(&PendingOpts{Consumer: o.From, MinIdle: o.MinIdle, Count: o.Count})
	if err == nil {
		err = checkConsumer(to)
	}
	if err != nil {
		return nil, opError("claim", g.s.key, err)
	}
	ids := make([]string, 0, len(o.IDs))
	for _, e := range o.IDs {
		ids = append(ids, e.String())
	}
	if len(ids) == 0 {
		rows, err := g.s.c.conn.XPending(ctx, g.s.key, g.name, q)
		if err != nil {
			return nil, opError("claim", g.s.key, err)
		}
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
		if len(ids) == 0 {
			return nil, nil
		}
	}
	got, err := g.s.c.conn.XClaim(ctx, g.s.key, g.name, to, o.MinIdle, ids, true)
	if err != nil {
		return nil, opError("claim", g.s.key, err)
	}
	out := make([]EntryID, 0, len(got))
	for _, s := range got {
		e, err := ParseEntryID(s)
		if err != nil {
			return nil, opError("claim", g.s.key, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// DeleteConsumer removes consumer from the group and reports whether it
// existed. A consumer that still owns pending entries is never removed
// (removing it would drop them from the group for good): it returns a
// [*ConsumerPendingError] and leaves everything as it was; move the entries
// first with [Group.Claim] or let a live consumer reclaim them. The check
// and the removal are one atomic step on the engine.
//
// Errors: the handle's [*NameError] and a bad consumer name (before any
// I/O); [*ConsumerPendingError]; [ErrGroupNotFound]; [ErrWrongType];
// [ErrClosed]; context errors; [*ServerError]; [*TransportError].
func (g *Group) DeleteConsumer(ctx context.Context, consumer string) (bool, error) {
	err := g.err
	if err == nil {
		err = checkConsumer(consumer)
	}
	if err != nil {
		return false, opError("delete consumer", g.s.key, err)
	}
	existed, pending, err := g.s.c.conn.DeleteConsumer(ctx, g.s.key, g.name, consumer)
	switch {
	case err != nil:
		return false, opError("delete consumer", g.s.key, err)
	case pending > 0:
		return false, opError("delete consumer", g.s.key, &ConsumerPendingError{Group: g.name, Consumer: consumer, Pending: pending})
	}
	return existed, nil
}
