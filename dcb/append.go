package dcb

import (
	"context"
	"fmt"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// Append is one event of [Store.Append]: its stream (type) in the store's
// queue, its payload and its tags (at least one: see [Item]).
type Append struct {
	Stream string
	Fields echomq.Fields
	Tags   []string
}

// Condition makes an append conditional: it is refused, writing nothing,
// when an event matching Query has a position above After. After is the
// position the decision's read was complete through ([Page.Next], the
// second result of [Store.ReadAll]); 0 asks that no matching event exists
// at all (uniqueness: "one name-claimed with tag name=ada, ever").
type Condition struct {
	Query Query
	After uint64
}

// Appended is one written event of [Store.Append]: its stream, receipt,
// entry id and queue position.
type Appended struct {
	Stream   string
	ID       echomq.ID
	Entry    echomq.EntryID
	Position uint64
}

// Append writes events, to one or several streams of the queue, in one
// atomic step: all or nothing, in order, each with the queue's next
// position and its index entries. With a condition the append happens only
// when no event matching cond.Query lies after cond.After, the query
// touching any streams of the queue, written here or not; otherwise
// nothing is written and the error is a [*ConflictError] (matching
// echomq.ErrConflict) naming the first such event. Nil cond appends
// unconditionally.
//
// Each event gets the engine's next id of the queue (node 1023, the ids
// echomq's append script chooses), so its receipt is unique in the queue
// and its entry id keeps the time law.
//
// Errors: before any I/O, a [*echomq.NameError] for a bad stream name, a
// [*echomq.FieldError] for a bad payload (including a reserved field) and
// an [*echomq.ArgumentError] for no events, more than MaxEvents, an event
// without tags, a bad tag or a bad query; a [*PositionError] when
// cond.After is out of the index's reach (never read as "nothing since");
// [*echomq.SkewError] when a target stream's top lies beyond MaxSkew ahead
// of the engine's clock; engine errors as Stream.Append's. After a
// transport error the append may have been written.
//
// The client's [echomq.AppendPrepareHook]s see the events of each stream
// (once per stream, in the order the streams first appear) before they are
// sent, and its [echomq.AppendHook]s are told of each event once the call
// returned, as for Stream.Append: its receipt, or the call's error.
func (s *Store) Append(ctx context.Context, events []Append, cond *Condition) ([]Appended, error) {
	if len(s.hooks) > 0 || len(s.prepare) > 0 {
		return s.appendObserved(ctx, events, cond)
	}
	got, err := s.append(ctx, events, cond)
	return got, opError("append", s.queue, err)
}

// appendObserved is Append with the client's append hooks.
func (s *Store) appendObserved(ctx context.Context, events []Append, cond *Condition) ([]Appended, error) {
	start := time.Now()
	if len(s.prepare) > 0 {
		if _, err := s.group(events, cond); err == nil {
			ctx, events = s.prepared(ctx, events)
		}
	}
	got, err := s.append(ctx, events, cond)
	err = opError("append", s.queue, err)
	for i, e := range events {
		a := echomq.AppendInfo{Queue: s.queue, Stream: e.Stream, Records: 1, Start: start, Duration: time.Since(start), Err: err}
		if err != nil {
			a.Failed = 1
		} else {
			a.ID = got[i].ID
		}
		for _, h := range s.hooks {
			h.OnAppend(ctx, a)
		}
	}
	return got, err
}

// prepared runs the AppendPrepareHooks on the events of each stream, and
// returns a copy of events with the fields they gave.
func (s *Store) prepared(ctx context.Context, events []Append) (context.Context, []Append) {
	out := append([]Append(nil), events...)
	done := map[string]bool{}
	for _, e := range events {
		if done[e.Stream] {
			continue
		}
		done[e.Stream] = true
		p := echomq.AppendPrepare{Queue: s.queue, Stream: e.Stream}
		var at []int
		for i, x := range events {
			if x.Stream == e.Stream {
				p.Records = append(p.Records, x.Fields)
				at = append(at, i)
			}
		}
		for _, h := range s.prepare {
			ctx = h.PrepareAppend(ctx, &p) //nolint:fatcontext // each hook wraps the context the one before returned
		}
		for j, i := range at {
			if j < len(p.Records) {
				out[i].Fields = p.Records[j]
			}
		}
	}
	return ctx, out
}

func (s *Store) append(ctx context.Context, events []Append, cond *Condition) ([]Appended, error) {
	g, err := s.group(events, cond)
	if err != nil {
		return nil, err
	}
	res, engineUs, err := clientconn.DCBAppend(ctx, s.c, s.queue, g)
	if err != nil {
		return nil, err
	}
	switch res.Status {
	case wire.DCBOK:
		out := make([]Appended, len(res.Appended))
		for i, a := range res.Appended {
			id, err := echomq.ParseID(a.Receipt)
			if err != nil {
				return nil, err
			}
			out[i] = Appended{Stream: events[i].Stream, ID: id, Entry: id.EntryID(), Position: a.Position}
		}
		return out, nil
	case wire.DCBConflict:
		ce := &ConflictError{After: cond.After, Stream: res.Stream, Position: res.Position}
		if ce.Entry, err = echomq.ParseEntryID(res.EntryID); err != nil {
			return nil, err
		}
		if snow, ok := ce.Entry.Snowflake(); ok {
			ce.ID = echomq.MustID(echomq.BrandEvent, snow)
		}
		return nil, ce
	case wire.DCBPosition:
		return nil, positionError(cond.After, res.Kind, res.Stream, res.Position)
	case wire.DCBSkew:
		return nil, &echomq.SkewError{Instant: unixMilli(res.SkewMs), Engine: unixMicro(engineUs), MaxSkew: s.maxSkew(), Top: true}
	case wire.DCBErr:
		return nil, wire.ScriptError(res.Err)
	}
	return nil, fmt.Errorf("dcb: unexpected append result %q", res.Status)
}

// group checks the events and the condition and builds the script's group.
func (s *Store) group(events []Append, cond *Condition) (wire.DCBGroup, error) {
	var g wire.DCBGroup
	if len(events) == 0 {
		return g, &echomq.ArgumentError{Name: "events", Reason: "none to append"}
	}
	if len(events) > MaxEvents {
		return g, &echomq.ArgumentError{Name: "events", Reason: fmt.Sprintf("%d: at most %d per append", len(events), MaxEvents)}
	}
	g.Events = make([]wire.DCBEvent, len(events))
	for i, e := range events {
		if err := keyspace.Stream(e.Stream); err != nil {
			return g, fmt.Errorf("event %d: %w", i, err)
		}
		if err := clientconn.CheckAppend(s.c, keyspace.StreamKey(s.queue, e.Stream), e.Fields); err != nil {
			return g, fmt.Errorf("event %d: %w", i, err)
		}
		if len(e.Tags) == 0 {
			return g, &echomq.ArgumentError{Name: "tags", Reason: fmt.Sprintf("event %d has none: an event of a dcb append needs at least one tag (an untagged one is Stream.Append's)", i)}
		}
		tags, joined, err := keyspace.Tags(e.Tags)
		if err != nil {
			return g, &echomq.ArgumentError{Name: "tags", Reason: fmt.Sprintf("event %d: %v", i, err)}
		}
		g.Events[i] = wire.DCBEvent{Stream: e.Stream, Tags: tags, Joined: joined, Fields: e.Fields}
	}
	if cond != nil {
		items, err := cond.Query.wire()
		if err != nil {
			return g, err
		}
		g.Cond, g.After, g.Query = true, cond.After, items
	}
	return g, nil
}
