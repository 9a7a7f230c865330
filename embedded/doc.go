// Package embedded is the opt-in in-process engine (miniredis) for trying
// EchoMQ out without a server: a program that imports it may connect with
// [URL], and one that does not import it does not link the engine.
//
// Nothing persists: the engine lives in the process and each client that
// connects with [URL] gets a fresh, empty one, stopped by the client's
// Close. It speaks enough of the engine's commands for every EchoMQ verb
// (the same conformance suite runs on it), but it is not a server: use a
// real Valkey or Redis for anything that must outlive the process.
//
// A program that runs on a real engine when EMQ_URL is set and on the
// embedded engine otherwise:
//
//	url := embedded.Or(os.Getenv("EMQ_URL"))
//	client, err := echomq.Connect(ctx, &echomq.Config{URL: url})
//
// Connect writes a notice that nothing persists to Config.Notice (by
// default standard error) when it starts the embedded engine.
package embedded
