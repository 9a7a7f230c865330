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
	// A script a second refreshes the clock reading, and a doubly refused
	// append is arbitrated by one: on a quiet machine a few in ten
	// thousand, on one whose cores another process keeps busy a few in a
	// hundred. A stream turned hot for its own races ran over a quarter of
	// its appends as scripts.
	require.Less(t, st.Scripts, st.Records/10, "own races sent the stream to the script: %+v", st)
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 64*300)
}
