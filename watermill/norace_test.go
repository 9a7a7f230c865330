//go:build stress && !race

package watermill_test

// raceEnabled reports a -race build; see race_test.go.
const raceEnabled = false
