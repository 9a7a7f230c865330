// Package dcb gives a queue's streams dynamic consistency boundaries:
// tagged events, reads of the events matching a query across the queue's
// streams in one total order, and appends conditioned on a query.
//
// One stream per event type keeps feeds and projections simple; a decision
// ("a player joins a game once", "a name is claimed once") usually depends
// on events of several types about one thing. Here events carry tags
// (key=value, such as game=GAM1); a [Query] selects events by type (stream
// name) and tags; a tagged event gets a position in its queue, 1, 2, …
// across every stream; and [Store.Append] writes one or more events, to
// one or several streams, atomically, on the condition that no event
// matching a query lies after the position its decision read. A decision
// that lost the race gets a [*ConflictError] (matching echomq.ErrConflict)
// naming the first event it missed; [Decide] reads, folds, decides and
// retries.
//
// The tags and the position are stored in the entry (fields "@tags" and
// "@pos", after "id") and in an index on the queue's slot (sorted sets per
// stream and tag, scored by position), written by the same script as the
// entries. Untagged appends are untouched: they have no position and are
// not in the index, which is why every query item names at least one tag.
// See docs/dcb.md for the model, the costs and the limits, and
// docs/keyspace.md for the keys.
package dcb
