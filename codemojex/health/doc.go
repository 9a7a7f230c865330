// Package health reads how a codemojex game server is doing from the log
// itself: players active, guesses scored per minute, how long scoring
// takes, and the scoring queue's backlog and dead jobs.
//
// The numbers come from the engine, not from one process's counters: the
// guess-scored stream's recent window (a time window is an id range) and
// the guess queue's job counts. Every server sharing an engine reads the
// same figures, and a restarted one reads them at once. A [Monitor] is a
// prometheus.Collector, so /metrics and the operator pages show the same
// numbers (docs/codemojex.md, "Game health").
package health
