// Package dashboard is EchoMQ's web dashboard: an [http.Handler] that shows
// the streams, consumer groups, dead letters, lanes, archive and projections
// of the queues it is given — their streams, groups and lanes found in the
// engine — with live updates, and lets a signed-in operator replay and
// purge dead letters, retry dead jobs and pause or resume lanes. It is a module of its own, so a program that imports the
// library does not inherit its test dependencies (a browser driver).
//
// # Mounting
//
// [New] returns the handler; mount it under any prefix of any server, with
// [http.StripPrefix] (links are built from the prefix it removed, or from
// [Config.Prefix]):
//
//	h, err := dashboard.New(client, &dashboard.Config{
//		Queues: []dashboard.Queue{{Name: "cm"}}, // streams, groups and lanes are discovered
//		Token:  os.Getenv("EMQ_UI_TOKEN"),
//	})
//	mux.Handle("/ops/", http.StripPrefix("/ops", h))
//
// The handler uses only the public API of the library and its feature
// packages (lanes, archive, projection, retention), one queue at a time, so
// it works on a Valkey Cluster: every key of one queue shares a hash slot.
//
// # Pages
//
//   - Overview: per queue its totals (streams, events, groups, dead letters,
//     lanes jobs), then every stream with its length, rate (events per
//     minute, with a small chart of the last 15 minutes), last event, groups
//     and dead letters; updated live over Server-Sent Events. The streams
//     are discovered with a SCAN of the queue's keys on the master that
//     holds its slot ([echomq.Client.StreamsPrefix]); [Queue.Fixed] turns
//     that off. Below the streams, the queue's partitioned streams
//     ([partition.List]) with their partition counts, each linked to its
//     page (not with [Queue.Fixed]).
//   - Stream: a time-window browser with paging. With [Config.Archive] set,
//     it reads archive and live tail as one log ([archive.Reader]) and marks
//     the seam between them.
//   - Groups: each consumer group with its consumers, pending count, lag
//     (computed by EchoMQ when the engine's own lag is unknown, as after
//     trims and deletions), idle times and the oldest pending entries.
//   - Dead letters: list, inspect, replay and purge.
//   - Lanes: the queue's job counts, the busiest lanes, dead jobs with
//     retry, pause and resume of the queue or of one lane.
//   - Archive: segments, watermark, lag behind the policy, verify.
//   - Projections: the checkpoints of live projections and how far they lag.
//   - Partitioned stream: its partitions (queue, length, newest id) and each
//     consumer group over them with its live members, the partitions each
//     holds, and each partition's holder, fencing token and lag.
//
// # Security
//
// Writes are POST only, and every one is refused unless the handler is
// writable ([Handler.Writable]: a [Config.Token] is set and
// [Config.ReadOnly] is not), the request comes from a signed-in session,
// the browser does not mark it cross-origin ([http.CrossOriginProtection])
// and it carries the session's CSRF token (a synchronizer token bound to
// the session). With a token set every page needs a sign-in; without one
// the pages are open and nothing can be written. Sessions are stateless
// cookies (HttpOnly, SameSite=Strict) signed with a key derived from the
// token, so they survive a restart, work across replicas, and end when the
// token changes.
//
// # Outages
//
// Every page first asks the engine for its clock, within 2 s. While the
// engine does not answer, a page is one "engine unreachable" notice (503)
// that reloads itself until it is back, and an open page's live updates
// say so; no number is shown beside an error.
//
// Assets are embedded ([embed.FS]); there is no build step and no
// JavaScript framework: the pages are server-rendered HTML, charts are
// inline SVG, and one small script applies the live updates.
package dashboard
