package echomq_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// rawMerge reads every stream whole with XRANGE (through Read) and merges
// the entries by entry id: the order a merged read must reproduce.
func rawMerge(t *testing.T, c *echomq.Client, q string, names []string) []string {
	t.Helper()
	type rec struct {
		e    echomq.EntryID
		name string
	}
	var all []rec
	for _, n := range names {
		evs, err := c.Stream(q, n).Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		for _, ev := range evs {
			all = append(all, rec{ev.Entry, n})
		}
	}
	slices.SortFunc(all, func(a, b rec) int {
		if c := a.e.Compare(b.e); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name) // equal ids of two streams: by name
	})
	out := make([]string, len(all))
	for i, r := range all {
		out[i] = r.name + "/" + r.e.String()
	}
	return out
}

// writeStreams appends n entries to each stream from w writers per stream,
// concurrently, and waits for them.
func writeStreams(t *testing.T, c *echomq.Client, q string, names []string, w, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(names)*w)
	for _, name := range names {
		s := c.Stream(q, name)
		for g := range w {
			wg.Go(func() {
				for i := range n {
					if _, err := s.Append(ctx, echomq.F("w", itoa(g), "n", itoa(i)), nil); err != nil {
						errs <- err
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func streamNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", prefix, i)
	}
	return out
}

// TestSetFollowMergedOrder: a follower of a named set started at the head
// yields every entry of every stream once, in the order of the raw merge,
// while writers append; its checkpoint names each stream's last entry.
func TestSetFollowMergedOrder(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	q := echomqtest.Queue(t)
	names := streamNames("s", 5)
	writeStreams(t, c, q, names, 1, 20)
	f, err := c.Streams(q, names...).Follower(&echomq.SetFollowOpts{Start: echomq.StartHead, Count: 7, Settle: 50 * time.Millisecond})
	require.NoError(t, err)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan string, 10000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range f.Follow(fctx) {
			if err != nil {
				continue
			}
			got <- ev.Stream + "/" + ev.Entry.String()
		}
	}()
	writeStreams(t, c, q, names, 3, 30)
	want := rawMerge(t, c, q, names)
	var seen []string
	deadline := time.After(waitTimeout)
	for len(seen) < len(want) {
		select {
		case s := <-got:
			seen = append(seen, s)
		case <-deadline:
			t.Fatalf("got %d of %d", len(seen), len(want))
		}
	}
	cancel()
	echomqtest.Recv(t, done, waitTimeout, "the follower to end with its context")
	require.Equal(t, want, seen)
	cp := f.Checkpoint()
	require.Len(t, cp, len(names))
	require.Zero(t, f.Stats().Late)
}
