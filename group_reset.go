package echomq

import (
	"context"
	"time"
)

// ResetOpts say where [Group.Reset] moves a group. Exactly one of ToID,
// ToTime and Ago is set.
type ResetOpts struct {
	// ToID makes the entry at or after this id the group's next delivery.
	ToID EntryID
	// ToTime makes the first entry minted at or after this instant the next
	// delivery.
	ToTime time.Time
	// Ago is ToTime = the client's now minus Ago.
	Ago time.Duration
	// DryRun reports what a reset would do and changes nothing.
	DryRun bool
}

// ResetResult is what [Group.Reset] did, or would do on a dry run.
type ResetResult struct {
	// From is the group's last-delivered id before the reset; To the one it
	// is (or would be) set to: the next delivery is the first entry above To.
	From, To EntryID
	// Redeliver is how many stored entries in (To, From] the group sees
	// again: entries it was handed once and is handed anew. Which consumer
	// of the group gets each is decided by who reads first; a group with
	// one consumer sees all of them.
	Redeliver int64
	// Skip is how many stored entries in (From, To] a forward reset makes
	// the group skip, never delivered.
	Skip int64
	// Pending is, per consumer, how many entries it owns unacknowledged.
	// They stay pending (a reset does not touch pending lists) and come back
	// by reclaim as before; those above To are also among Redeliver.
	Pending map[string]int64
	// DryRun is true when nothing was changed.
	DryRun bool
}

// countSlice bounds the entries one counting script walks, so a long
// range holds the engine for a few milliseconds at a time.
const countSlice = 50000

// Reset moves the group's read position (XGROUP SETID) so that its next new
// delivery is the first entry at or after opts' id or instant: backwards
// to replay what it already saw, forwards to skip. With DryRun it only
// counts. The counts are of stored entries at the time of the call; a group
// that keeps reading meanwhile moves its own position on, so reset a group
// whose consumers are stopped when the numbers must match.
//
// Errors, before any I/O: the handle's [*NameError]; an [*ArgumentError]
// when not exactly one target is set or Ago is negative. Then
// [ErrGroupNotFound], [ErrWrongType], [ErrClosed], context errors,
// [*ServerError], [*TransportError].
//
// Nil opts set no target, which is refused like an empty ResetOpts.
func (g *Group) Reset(ctx context.Context, opts *ResetOpts) (ResetResult, error) {
	const op = "group reset"
	if opts == nil {
		opts = &ResetOpts{}
	}
	if g.err != nil {
		return ResetResult{}, opError(op, g.s.key, g.err)
	}
	to, err := g.resetTarget(opts)
	if err != nil {
		return ResetResult{}, opError(op, g.s.key, err)
	}
	info, err := g.Info(ctx)
	if err != nil {
		return ResetResult{}, err
	}
	res := ResetResult{From: info.LastDelivered, To: to, DryRun: opts.DryRun, Pending: map[string]int64{}}
	for _, c := range info.Consumers {
		res.Pending[c.Name] = c.Pending
	}
	switch to.Compare(res.From) {
	case -1:
		res.Redeliver, err = g.s.count(ctx, Exclusive(to), Inclusive(res.From))
	case 1:
		res.Skip, err = g.s.count(ctx, Exclusive(res.From), Inclusive(to))
	}
	if err != nil || opts.DryRun {
		return res, opError(op, g.s.key, err)
	}
	return res, opError(op, g.s.key, g.s.c.conn.XGroupSetID(ctx, g.s.key, g.name, to.String()))
}

// resetTarget turns opts into the last-delivered id to set: the entry id
// just below the target, so the target itself is delivered next.
func (g *Group) resetTarget(opts *ResetOpts) (EntryID, error) {
	n := 0
	if opts.ToID != (EntryID{}) {
		n++
	}
	if !opts.ToTime.IsZero() {
		n++
	}
	if opts.Ago != 0 {
		n++
	}
	switch {
	case n != 1:
		return EntryID{}, &ArgumentError{Name: "reset target", Reason: "set exactly one of ToID, ToTime and Ago"}
	case opts.Ago < 0:
		return EntryID{}, &ArgumentError{Name: "reset target", Reason: "Ago must not be negative"}
	}
	target := opts.ToID
	switch {
	case !opts.ToTime.IsZero():
		target = Floor(opts.ToTime)
	case opts.Ago > 0:
		target = Floor(g.s.c.Now().Add(-opts.Ago))
	}
	if target == (EntryID{}) {
		return target, nil
	}
	return predecessor(target), nil
}

// count counts the stored entries between two bounds, in slices.
func (s *Stream) count(ctx context.Context, from, to Bound) (int64, error) {
	var total int64
	lower := from.lower()
	for {
		n, last, err := s.c.conn.XCount(ctx, s.key, lower, to.upper(), countSlice)
		if err != nil {
			return total, err
		}
		total += n
		if n < countSlice || last == "" {
			return total, nil
		}
		lower = "(" + last
	}
}
