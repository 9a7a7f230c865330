// Package archive folds what retention trims into a durable archive, and
// reads the archive and the live stream back as one log.
//
// A stream under archive control is trimmed only by its [Archiver], which
// trims nothing it has not archived. Each cycle ([Archiver.Cycle]) of one
// stream runs fold-then-trim:
//
//  1. Lock the stream (the store's [Locker], or a lease in the engine),
//     load its [Manifest] and reconcile the watermark cache with it.
//  2. Read the slice above the watermark W up to the policy's horizon. A
//     length rule ("keep the newest n") becomes a count before the fold:
//     the oldest len-n entries above W, a set that appends (always above)
//     cannot change, so a concurrent append is never trimmed unarchived.
//  3. Write the slice as immutable Parquet segments to the [Store], named
//     after the stream and the id range, so a retry rewrites the same
//     object rather than adding a copy.
//  4. Commit manifest generation g+1 with an exclusive Put: the commit
//     point. Two archivers can never both commit on top of generation g.
//  5. Cache W in "emq:{q}:stream:<name>:archived".
//  6. Trim exactly at the successor of W (XTRIM MINID =), which can only
//     remove archived entries, whatever was appended meanwhile.
//
// # State model and crashes
//
// The manifest is the truth; everything else is derived from it. A crash
// at any point loses nothing and duplicates nothing:
//
//   - before the commit: the written segments are orphans (no manifest
//     names them); reads ignore them, the next cycle rewrites them under
//     the same names, and [Archiver.GC] collects the rest;
//   - after the commit, before the cache: the next cycle finds the cache
//     behind the manifest, repairs it (the manifest wins) and trims;
//   - after the cache, during or before the trim: the entries at or below
//     W are both archived and live; merged reads take them from the
//     archive only (the live part starts after W), and the next cycle
//     trims them before measuring the stream.
//
// A cache that is lost is restored from the manifest; a cache that
// disagrees with the manifest is reported ([CacheCheck], [Status]) and
// overwritten. A store that fails aborts the cycle before any trim:
// over-retention, never loss.
//
// # Merged reads
//
// A [Reader] returns the segments overlapping the requested range (found
// by the manifest's id index, so a window touches only its segments), then
// the live stream from (W, as one ordered log; [Event] says where each
// event came from. Time windows are id ranges, so they straddle the seam.
// A Reader has the read methods of *echomq.Stream (Key, Scan, Follow), so
// projections fold across the seam unchanged. Reads stay whole while an
// archiver runs: each live page is checked against the watermark cache,
// and re-read through the archive when W moved under it.
//
// # Layout
//
// One store holds many streams of many queues, each with its own manifest
// and watermark:
//
//	queue=<q>/stream=<name>/manifests/<generation>.json
//	queue=<q>/stream=<name>/segments/<first EVT id>-<last EVT id>.parquet
//
// Segments are Parquet files any Parquet tool reads, with the columns
// id (string), ms (int64), seq (int64) and fields
// (list<struct<name: binary, value: binary>>). Stores: package fsstore (a
// local directory, the default) and package s3store (any S3-compatible
// object store); both pass package archivetest.
package archive
