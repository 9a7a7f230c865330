package echomqtest

import (
	"sync"
	"testing"
	"time"
)

// Tests wait on events, not on time: a test that sleeps "long enough" for
// something to happen is slow when it works and flaky on a loaded machine,
// and a test that blocks on a channel the code under test never feeds
// hangs until the binary's timeout instead of failing. The helpers below
// wait on the event itself, with a generous bound, and fail naming what
// was awaited. Call them from the test's goroutine (they call tb.Fatalf).

// pollEvery is how often [WaitFor] looks at its condition: often enough
// not to slow a test down, rarely enough not to load the machine.
const pollEvery = 10 * time.Millisecond

// Recv returns the next value received from ch, or fails tb with what was
// awaited when none arrives within d. A closed channel yields its zero
// value, as a plain receive does.
func Recv[T any](tb testing.TB, ch <-chan T, d time.Duration, what string) T {
	tb.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		tb.Fatalf("waited %v for %s", d, what)
		var zero T
		return zero
	}
}

// WaitFor polls cond until it holds, or fails tb with what was awaited
// after d. cond runs on the calling goroutine, so it may use tb itself
// (unlike the condition of testify's Eventually).
func WaitFor(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v for %s", d, what)
			return
		}
		timer := time.NewTimer(pollEvery)
		<-timer.C
	}
}

// Join waits for wg, or fails tb with what was awaited when it is not done
// within d: a worker that hangs fails the test instead of hanging it.
func Join(tb testing.TB, wg *sync.WaitGroup, d time.Duration, what string) {
	tb.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	Recv(tb, done, d, what)
}
