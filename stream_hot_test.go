package echomq_test

import (
	"sync"
	"testing"
	"time"

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
	// Own races never turn the stream contended (that is kept for a top of
	// another node), however often the machine preempts a goroutine
	// between its mint and its send. Scripts still run here, and how many
	// depends on the load: a doubly refused append is arbitrated by one,
	// and an append the clock reading cannot vouch for (a round trip that
	// took long) goes through one.
	require.Zero(t, st.Contended, "own races sent the stream to the script: %+v", st)
	require.Less(t, st.Scripts, st.Records/4, "own races sent the stream to the script: %+v", st)
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 64*300)
}

// TestForeignTopCountsContended: a top written by another node above this
// writer's ids turns the stream contended once (AppendStats.Contended),
// and the appends after it go to the script without a refused XADD first.
func TestForeignTopCountsContended(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), NodeID: echomq.Node(5)})
	s := c.Stream(echomqtest.Queue(t), "foreign")
	now, err := c.EngineTime(ctx)
	require.NoError(t, err)
	snow, err := echomq.NewSnowflake(now.Add(200*time.Millisecond).UnixMilli()-echomq.Epoch, 1000, 0)
	require.NoError(t, err)
	top := echomq.MustID(echomq.BrandEvent, snow)
	_, err = c.Do(ctx, "XADD", s.Key(), top.EntryID().String(), "id", top.String())
	require.NoError(t, err)
	id, err := s.Append(ctx, echomq.F("k", "v"))
	require.NoError(t, err)
	require.Positive(t, id.EntryID().Compare(top.EntryID()))
	st := c.AppendStats()
	require.EqualValues(t, 1, st.Contended, "%+v", st)
	refused := st.Refused
	_, err = s.Append(ctx, echomq.F("k", "w"))
	require.NoError(t, err)
	st = c.AppendStats()
	require.Equal(t, refused, st.Refused, "a contended stream's append goes to the script first: %+v", st)
}
