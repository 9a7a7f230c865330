//go:build race

package watermill_test

// raceEnabled reports a -race build. The suite's TestReconnect has a data
// race of its own (its publishedMessages slice is appended by a goroutine
// and read by the test without synchronization, test_pubsub.go lines 1086
// and 1120 in v1.5.1), so it cannot pass under -race for any Pub/Sub: race
// builds run the suite without RestartServiceCommand and the plain build
// runs the reconnect scenario.
const raceEnabled = true
