package echomq

import (
	"context"
	"fmt"
)

// defaultCountLimit is the default bound of [Stream.CountAfter] and
// [Group.Lag]: the most entries one count reads on each side of its id.
const defaultCountLimit = 10_000

// maxCountLimit is the largest limit [Stream.CountAfter] accepts.
const maxCountLimit = 10_000_000

// Count is the answer of [Stream.CountAfter].
type Count struct {
	// N is the number of entries counted.
	N int64
	// Exact is false when N is only a lower bound: both sides of the id
	// held more than the limit.
	Exact bool
}

// CountAfter counts the stream's entries above the entry id after (all of
// them for the zero EntryID), in one script on the stream's slot, so the
// count is consistent with itself. Its cost is bounded: the length and the
// two ends answer an id below the first entry or at or above the last
// without a scan; otherwise it reads at most limit entries above the id,
// then at most limit at or below it (and subtracts from the length); when
// both sides hold limit or more, the answer is limit, not Exact. limit 0
// means 10 000. Errors: the handle's [*NameError], an
// [*ArgumentError] for a limit outside 0..10 000 000 (before any I/O),
// [ErrWrongType], the engine's errors.
func (s *Stream) CountAfter(ctx context.Context, after EntryID, limit int64) (Count, error) {
	if err := s.ready(ctx); err != nil {
		return Count{}, opError("count", s.key, err)
	}
	if limit < 0 || limit > maxCountLimit {
		return Count{}, opError("count", s.key, &ArgumentError{Name: "limit", Reason: fmt.Sprintf("%d is outside 0..%d", limit, maxCountLimit)})
	}
	if limit == 0 {
		limit = defaultCountLimit
	}
	var from string
	if after != (EntryID{}) {
		from = after.String()
	}
	n, exact, err := s.c.conn.CountAfter(ctx, s.key, from, limit)
	if err != nil {
		return Count{}, opError("count", s.key, err)
	}
	return Count{N: n, Exact: exact}, nil
}

// GroupLag is a group's backlog as EchoMQ counts it.
type GroupLag struct {
	// Lag is the number of entries above the group's last delivered id:
	// entries none of its consumers was handed yet. Unlike the engine's
	// own lag (EngineLag), it stays known after XTRIM and XDEL.
	Lag int64
	// Exact is false when Lag is a lower bound (see [Stream.CountAfter]).
	Exact bool
	// Pending is the number of entries delivered and not acknowledged.
	Pending int64
	// LastDelivered is the group's last delivered id.
	LastDelivered EntryID
	// EngineLag is the engine's own figure, -1 when it cannot tell.
	EngineLag int64
}

// Lag returns the group's lag counted by EchoMQ: the entries above its last
// delivered id, with [Stream.CountAfter]'s bounded cost (limit 0 means
// 10 000). Errors: the handle's [*NameError];
// [ErrGroupNotFound] when the stream has no such group; others as
// [Stream.CountAfter].
func (g *Group) Lag(ctx context.Context, limit int64) (GroupLag, error) {
	r, err := g.row(ctx)
	if err != nil {
		return GroupLag{}, opError("lag", g.s.key, err)
	}
	gl := GroupLag{Pending: r.Pending, EngineLag: r.Lag}
	if r.LastDeliveredID != "" {
		if gl.LastDelivered, err = ParseEntryID(r.LastDeliveredID); err != nil {
			return GroupLag{}, opError("lag", g.s.key, err)
		}
	}
	cnt, err := g.s.CountAfter(ctx, gl.LastDelivered, limit)
	if err != nil {
		return GroupLag{}, err
	}
	gl.Lag, gl.Exact = cnt.N, cnt.Exact
	return gl, nil
}
