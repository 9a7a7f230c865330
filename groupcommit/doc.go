// Package groupcommit batches concurrent calls of one operation into fewer
// engine round trips: the group commit of databases, for the callers of a
// Lua script or a transaction.
//
// A [Committer] runs a caller's request at once while fewer than Flights
// calls are in flight; callers that arrive when every flight is taken queue
// up, and when a flight returns the queue goes out as one call (up to Max
// requests), run by the first caller in it. A lone caller never waits, and
// under load one call carries many requests, so the engine pays an
// operation's fixed cost (a script's setup, a hot key's lock) once per
// batch instead of once per request. No goroutine is involved: the
// leader's role passes from caller to caller.
//
// Once a request is submitted it is carried out whatever happens to its
// caller's context, so its outcome is never unknown: the context's values
// reach the call, and Timeout bounds it.
//
// The lanes queue batches its enqueues and settlements with it, and the
// codemojex game its guesses.
package groupcommit
