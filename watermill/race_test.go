//go:build stress && race

package watermill_test

// raceEnabled reports a -race build. The suite's TestReconnect has a data
// race of its own (its publishedMessages slice is appended by a goroutine
// and read by the test without synchronization, test_pubsub.go lines 1086
// and 1120 in v1.5.1), so it cannot pass under -race for any Pub/Sub: the
// stress test runs it only in plain builds. TestReconnect (reconnect_test.go)
// runs the same scenario without that race, in every build.
const raceEnabled = true
