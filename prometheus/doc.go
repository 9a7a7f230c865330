// Package emqprom exports EchoMQ's numbers to Prometheus, in a module of its
// own so the library never requires client_golang.
//
// Two collectors, both [prometheus.Collector]s:
//
//   - [Metrics] is a set of hooks ([echomq.Hook]): give it to
//     echomq.Config.Hooks and it counts what the client does (appends and
//     their latency, engine calls, deliveries, acknowledgements, failures,
//     dead letters, trims, lanes jobs, archive cycles, projection
//     checkpoints) as it happens, at the cost of a counter update.
//   - [Collector] reads the engine at scrape time for the gauges only the
//     engine knows: stream length and memory, each consumer group's pending
//     count, oldest pending age and lag (counted by EchoMQ, so it holds after
//     XTRIM and XDEL, where the engine's own lag is NULL), dead letters,
//     lanes queue depths, the archive's backlog and projections' distance
//     from the stream top. It reads only what it is configured with, within
//     a scrape timeout.
//
// [Register] registers both on a registerer; [Handler] serves a registry.
// Label cardinality is bounded by configuration: queue, stream, group,
// projection names and a closed set of event, command and error kinds;
// never a lane, an id or a consumer name. docs/metrics.md lists every
// metric, its type, its labels and its meaning.
package emqprom
