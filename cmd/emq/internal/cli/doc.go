// Package cli implements the emq command-line tool: appending to and reading
// EchoMQ streams, trimming and inspecting them, decoding and minting branded
// ids, and a demo story on the embedded engine.
//
// The commands are built with cobra, but everything they need from the
// process is passed in: [Run] takes the arguments, stdin, stdout, stderr and
// an [*Options] (clock, node id, environment), and returns the exit code, so
// tests drive the tool exactly as a shell does, with deterministic ids and
// times. cmd/emq calls [Execute].
//
// # Output
//
// By default every command writes an aligned, human-readable table. With
// --json it writes exactly one JSON document (tail --follow writes JSON
// Lines, one event per line, since it never ends). An event is
//
//	{"id":"EVT…","entry":"<ms>-<seq>","time":"<RFC3339, ms, UTC>","fields":{…}}
//
// where "fields" is an object whose keys appear in the order the event
// stores them (the order of the append). A tagged event (append --tag) also
// has "position" and "tags"; emq query reads them across the queue's
// streams in position order.
//
// # Exit codes
//
// [ExitOK] (0) success; [ExitError] (1) a runtime or engine error, or the
// engine refused the request; [ExitUsage] (2) the command line is wrong,
// decided before any I/O (unknown command or flag, wrong argument count, a
// malformed name, id, bound, time, field or count): exactly one line
// "emq: <message>" on stderr; [ExitNotFound] (3) the thing asked about does
// not exist (read, window, since, tail or info of a missing stream, a
// missing group, dead letter or job); [ExitConflict] (4) a conditional
// append (append --if-none) found an event matching its condition after
// its position and wrote nothing.
//
// # Engines
//
// --url (default: the EMQ_URL environment variable) names a Valkey or Redis
// server. When both are empty the command runs on an embedded in-process
// engine that lives only as long as the command: nothing survives between
// two invocations, which suits `emq demo` and the id commands but not much
// else.
package cli
