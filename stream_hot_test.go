package echomq_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// TestOwnRacesStayPlain: one client appending from 64 goroutines races only
// with itself (goroutines mint and send in different orders). Those
// refusals are minted again as plain XADDs; the stream never turns to the
// arbitrating script, which is kept for a writer of another node above
// this one.
func TestOwnRacesStayPlain(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), NodeID: echomq.Node(3)})
	s := c.Stream(echomqtest.Queue(t), "own")
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for range 300 {
				if _, err := s.Append(ctx, echomq.F("k", "v")); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := c.AppendStats()
	require.EqualValues(t, 64*300, st.Records)
	// Every script here is a doubly refused append (two refused plain
	// XADDs, then the script) or the clock reading's refresh (one a
	// second): how many refusals there are depends on how often the
	// machine preempts a goroutine between its mint and its send, so the
	// bound is on the path, not on the count. A stream turned hot runs its
	// appends as scripts without a refusal before them.
	require.LessOrEqual(t, st.Scripts, st.Refused/2+10, "own races sent the stream to the script: %+v", st)
	require.Less(t, st.Scripts, st.Records/4, "own races sent the stream to the script: %+v", st)
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 64*300)
}
