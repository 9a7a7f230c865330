package echomq_test

import (
	"errors"
	"iter"
	"sync"
	"testing"
	"time"

	echomq "github.com/echomq/echomq"
)

// followTally records what a follower loop (or a handler) is handed
// through an outage: the item of each event, every error, a signal per
// event and one at the first error.
type followTally struct {
	mu     sync.Mutex
	got    []string
	errs   []error
	seen   chan struct{}
	outage chan struct{}
}

func newFollowTally(events int) *followTally {
	return &followTally{seen: make(chan struct{}, events), outage: make(chan struct{}, 1)}
}

// follow iterates seq until it ends, recording each event's item (item(ev));
// an error matching ErrUnavailable is recorded and the loop goes on, any
// other ends it.
func follow[E any](f *followTally, seq iter.Seq2[E, error], item func(E) string) {
	for ev, err := range seq {
		f.mu.Lock()
		if err != nil {
			f.errs = append(f.errs, err)
			f.mu.Unlock()
			select {
			case f.outage <- struct{}{}:
			default:
			}
			if !errors.Is(err, echomq.ErrUnavailable) {
				return
			}
			continue
		}
		f.mu.Unlock()
		f.add(item(ev))
	}
}

// add records one item handed over.
func (f *followTally) add(item string) {
	f.mu.Lock()
	f.got = append(f.got, item)
	f.mu.Unlock()
	f.seen <- struct{}{}
}

// wait waits for n more events.
func (f *followTally) wait(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-f.seen:
		case <-time.After(30 * time.Second):
			t.Fatal("follower stalled")
		}
	}
}

// waitOutage waits for the first error.
func (f *followTally) waitOutage(t *testing.T) {
	t.Helper()
	select {
	case <-f.outage:
	case <-time.After(30 * time.Second):
		t.Fatal("the follower did not report the outage")
	}
}

// result returns the items and the errors recorded.
func (f *followTally) result() ([]string, []error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...), append([]error(nil), f.errs...)
}
