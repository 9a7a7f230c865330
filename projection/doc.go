// Package projection folds streams into read models: a projection answers
// one question from the log ("how many rooms opened this hour", "each
// player's running total") by folding a slice of it, recomputed from the log
// rather than kept in sync in a separate table.
//
// # Folds
//
// A [Projection] is an initial state and an Apply function over events in
// mint order. [Fold] runs one over a [Window] of one stream, or of several
// streams fanned in by entry id ([Merge]: a k-way merge holding one page per
// stream; an entry id present in two streams goes to the earlier source
// first):
//
//	perHour, err := projection.Fold(ctx, projection.Last(24*time.Hour),
//		projection.CountPer(time.Hour), client.Stream("cm", "room-opened"))
//
// Windows: [All], [Since] t0, [Between] t0 and t1 (closed), [Last] d
// relative to an injected clock, and [IDs] for an entry id range. Time
// windows select whole milliseconds of mint instants, as entry ids do.
//
// # Ready-made folds
//
// [Count], [CountBy], [Sum], [Min], [Max], [Avg], [Stats], [CountPer] (time
// buckets), [Latest] (a changelog per key), [Top], [TopBy] (a leaderboard)
// and [Distinct]. Their states render as a [Table]; a [Spec] names one from
// text ("count,by=room", "buckets,every=hour") for command lines.
//
// # Incremental projections
//
// A [Live] projection keeps its state and a [Checkpoint] vector: the last
// entry id folded per stream. [Live.CatchUp] folds only what was appended
// after the checkpoint; [Live.Run] follows every stream with blocking reads
// on connections of their own and keeps the state current. Snapshots
// (state and checkpoint encoded together into one value, written by one
// command, in a [Store] such as Client.Snapshot's
// "emq:{queue}:projection:<name>") let a restart resume instead of refolding;
// a snapshot of another Version is never resumed: the projection is rebuilt.
// [Live.Rebuild] refolds from the start and gives the same state.
//
// The checkpoint never passes an event that was not folded: within one
// stream the engine accepts an entry only above the stream's last id, so an
// entry visible to a reader has every later entry above it, and a reader
// that resumes strictly after the last entry it folded misses nothing,
// whatever the number of concurrent writers. The event is folded, then the
// checkpoint moved over it, under one lock; a snapshot is taken under that
// lock.
//
// # Cached reads
//
// A [Cached] projection is folded once and served from memory until a
// stream has entries above what was folded; then only those are folded.
//
// # Archived history
//
// A [Source] is anything with the two reads of a stream (*echomq.Stream is
// one): a reader that merges the durable archive with the live tail plugs
// in without changing projection code.
package projection
