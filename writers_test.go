package echomq_test

import (
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// TestTwoWritersOneStream: two clients with different node ids, one with its
// clock 50 ms ahead, append 10 000 entries each to one stream at once. No
// error surfaces, every receipt is present exactly once, and stream order is
// receipt order.
func TestTwoWritersOneStream(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	q := echomqtest.Queue(t)
	ahead := func() time.Time { return time.Now().Add(50 * time.Millisecond) }
	writers := []*echomq.Client{
		connect(t, echomq.Config{URL: url, NodeID: new(900)}),
		connect(t, echomq.Config{URL: url, NodeID: new(7), Clock: ahead}),
	}
	const each, perWriterGoroutines = 10_000, 8
	var mu sync.Mutex
	var receipts []echomq.ID
	var wg sync.WaitGroup
	errs := make(chan error, len(writers)*perWriterGoroutines)
	for _, w := range writers {
		s := w.Stream(q, "contended")
		for g := range perWriterGoroutines {
			wg.Go(func() {
				var mine []echomq.ID
				for i := range each / perWriterGoroutines {
					node, err := echomq.NodeIDOf(ctx, w, q)
					if err != nil {
						errs <- err
						return
					}
					id, err := s.Append(ctx, echomq.F("writer", strconv.Itoa(node), "g", strconv.Itoa(g), "i", strconv.Itoa(i)), nil)
					if err != nil {
						errs <- err
						return
					}
					mine = append(mine, id)
				}
				mu.Lock()
				receipts = append(receipts, mine...)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, receipts, 2*each)

	var stored []echomq.ID
	for ev, err := range writers[0].Stream(q, "contended").Scan(ctx, echomq.All, nil) {
		require.NoError(t, err)
		stored = append(stored, ev.ID)
	}
	require.Len(t, stored, 2*each)
	require.True(t, slices.IsSortedFunc(stored, func(a, b echomq.ID) int {
		// Strictly increasing: equal neighbours would fail here too.
		if a.Compare(b) >= 0 {
			return 1
		}
		return -1
	}), "stream order is receipt (mint) order")
	slices.SortFunc(receipts, echomq.ID.Compare)
	require.Equal(t, receipts, stored, "every receipt exactly once")
}
