// Package echomq is an event-stream tier over Valkey (or Redis ≥ 7.0) for
// Go programs: domain events appended to one named stream per event type,
// each under a branded, time-ordered id minted by the writer, read back by
// range, by time window, or live.
//
// # Streams
//
// One stream per event type: the name is the channel. A reader of the
// settlement feed reads only settlements, and a new event type costs a new
// name and nothing else.
//
//	client, err := echomq.Connect(ctx, &echomq.Config{URL: os.Getenv("EMQ_URL")}) // redis://host:port
//	// (a program may offer the in-process engine with package embedded:
//	// URL: embedded.Or(os.Getenv("EMQ_URL")))
//	defer client.Close()
//	scored := client.Stream("cm", "guess-scored") // bad names fail here, before any I/O
//	id, err := scored.Append(ctx, echomq.F("game", game, "player", player, "points", "480"), nil)
//
// # Ids
//
// Every entry carries an EVT [ID]: three brand letters and the base62 form of
// a 63-bit [Snowflake] (41 bits of milliseconds since 2024-01-01 UTC, 10 bits of node,
// 12 bits of sequence). The writer's [Minter] hands them out strictly
// increasing. The id is stored in the entry as the field "id" (the receipt a
// reader recovers without re-encoding), and it is mapped onto the entry id
// "<unix ms>-<node|seq>" ([ID.EntryID]), so stream order, id order and mint
// order are one sequence, and a time window is an id range ([Floor], [Ceil]).
//
// # Reading
//
// [Stream.Read] reads a [Range] (oldest first, or newest first), with
// [Window] and [Since] for time travel; [Stream.Scan] pages through any range
// holding one page in memory; [Stream.Follow] yields new entries as they
// arrive.
//
// # Consumer groups
//
// [Client.Consumer] reads a stream as one member of a group, at least once:
// it drains its own pending list, reclaims idle entries and blocks for new
// ones; a handler's error or panic leaves the entry pending, and after
// MaxDeliveries it moves to the stream's [DeadLetters]. Handlers are made
// idempotent by branded id with [Once]. See docs/consumer-groups.md.
//
// # Tables and transactions
//
// Package tables (github.com/echomq/echomq/tables) holds small records
// beside the streams; its Update changes records and appends events in one
// optimistic transaction.
//
// # Reserved names
//
// The payload field "id" holds the record id, so a payload naming it is
// refused ([ErrReservedField]). Queue and stream names match
// [A-Za-z0-9._-]{1,128}, so no name can reach a reserved suffix such as
// ":archived" or the "emq:{q}:" prefix the keyspace owns ([ErrInvalidName]).
// Everything else is the domain's to name.
//
// # Errors
//
// Bad input is refused before any I/O with a typed error ([*NameError],
// [*FieldError], [*IDError], [*KindError], [*RangeError], [*ArgumentError]);
// engine replies come back as [*ServerError], matching [ErrWrongType] or
// [ErrNonMonotonic] where they mean that; an engine at its maxmemory
// refuses appends with an [*EngineFullError] ([ErrEngineFull]). All match
// their sentinels with errors.Is.
//
// # Services
//
// The long-running components — [Consumer], [SetConsumer], lanes.Worker,
// projection.Live, archive.Archiver, retention.Driver and partition.Member —
// keep one contract:
//
//   - Run(ctx) runs on the caller's goroutine until ctx ends or Stop is
//     called, then stops gracefully and returns nil; a permanent error ends
//     it early and is returned.
//   - Start(ctx) does the same in a goroutine the service owns and returns at
//     once.
//   - Stop(ctx) stops gracefully and waits until the service has stopped or
//     ctx ends; it returns the run's error, is idempotent, and does nothing
//     on an idle service.
//   - Stopped() is closed once the run has ended (already closed before the
//     first run).
//
// All seven are built on one service base. All but partition.Member ride
// out an engine's outages on one retry engine (logged once each way,
// backoff from 100ms to 2s), as do [Stream.Follow] and [SetFollower.Follow];
// a partition member logs an outage once each way too, and retries at its
// beat, stopping a partition before a lease it could not renew may lapse. [Consumer] and [SetConsumer]
// are two fronts over one consumer engine: the handler call and its panic
// recovery, retries ([RetryAfter]), dead letters after MaxDeliveries,
// reclaims, batched acknowledgements, stats and hooks are the same code;
// they differ only in where the entries come from (one stream, handled
// with Concurrency handlers, or a set's streams, merged in entry-id order).
//
// A second Run or Start while one runs returns [ErrRunning], the same value
// from every package. A service may run again after it stopped (a
// lanes.Worker is single-use). Graceful means: stop taking new work, let the
// work in flight finish within the service's grace (ConsumerConfig.Grace,
// the worker's ShutdownGrace), then cancel what is left and hand it back
// without spending an attempt.
//
// # Engines
//
// Config.URL names the engine; an empty URL is [ErrNoEngine]. The URL
// "embedded:" starts an in-process engine in a program that imports package
// embedded, which programs use as their default for trying things out.
//
// Connect learns the engine in the round trip that reads its clock
// ([Client.Engine]: Redis or Valkey, version, cluster, memory, eviction
// policy) and refuses one whose maxmemory-policy evicts keys
// ([*EvictionError]) or a user who may not run scripts ([*ScriptsError]).
// A watcher owned by the client re-reads the policy and memory every
// Config.EngineCheckInterval.
package echomq
