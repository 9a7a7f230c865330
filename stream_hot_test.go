package echomq_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// TestOwnRacesStayPlain: one client appending from 64 goroutines races only
// with itself (goroutines mint and send in different orders). Those
// refusals are minted again as plain XADDs; the stream never turns to the
// arbitrating script, which is kept for a writer of another node above
// this one.
func TestOwnRacesStayPlain(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), NodeID: new(3)})
	s := c.Stream(echomqtest.Queue(t), "own")
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for range 300 {
				if _, err := s.Append(ctx, echomq.F("k", "v"), nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := echomq.AppendStatsOf(c)
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

// TestOwnRacesStayPlainBatches: batches of 64 from 16 goroutines of one
// client race each other as single appends do (a later batch minted after
// this one may reach the engine first); the refused records are minted
// again and sent plain once more, so the stream never turns contended and
// the scripts stay rare.
func TestOwnRacesStayPlainBatches(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), NodeID: new(3)})
	s := c.Stream(echomqtest.Queue(t), "own-batches")
	batch := make([]echomq.Fields, 64)
	for i := range batch {
		batch[i] = echomq.F("i", itoa(i))
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 40 {
				if _, err := s.AppendBatch(ctx, batch, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := echomq.AppendStatsOf(c)
	require.EqualValues(t, 16*40*64, st.Records)
	require.Zero(t, st.Contended, "own races sent the stream to the script: %+v", st)
	require.Less(t, st.Scripts, int64(16*40)/4, "own races sent the batches to the script: %+v", st)
	t.Logf("%+v: %.4f refused XADDs per entry", st, float64(st.Refused)/float64(st.Records))
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 16*40*64)
}

// TestForeignTopCountsContended: a top written by another node above this
// writer's ids turns the stream contended once (AppendStats.Contended),
// and the appends after it go to the script without a refused XADD first.
func TestForeignTopCountsContended(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), NodeID: new(5)})
	s := c.Stream(echomqtest.Queue(t), "foreign")
	now, err := c.EngineTime(ctx)
	require.NoError(t, err)
	snow, err := echomq.NewSnowflake(now.Add(200*time.Millisecond).UnixMilli()-echomq.Epoch, 1000, 0)
	require.NoError(t, err)
	top := echomq.MustID(echomq.BrandEvent, snow)
	_, err = rawcmd.Do(ctx, c, "XADD", s.Key(), top.EntryID().String(), "id", top.String())
	require.NoError(t, err)
	id, err := s.Append(ctx, echomq.F("k", "v"), nil)
	require.NoError(t, err)
	require.Positive(t, id.EntryID().Compare(top.EntryID()))
	st := echomq.AppendStatsOf(c)
	require.Positive(t, st.Contended, "%+v", st)
	refused := st.Refused
	_, err = s.Append(ctx, echomq.F("k", "w"), nil)
	require.NoError(t, err)
	st = echomq.AppendStatsOf(c)
	require.Equal(t, refused, st.Refused, "a contended stream's append goes to the script first: %+v", st)
}

// testContendedAppend (conformance): a stream whose top another node wrote
// ahead of this writer turns contended after two refused plain XADDs; its
// appends after that (single records and a batch) go to the scripts without
// a refusal first, follow the top in its millisecond with the engine's ids
// (node EngineNode, the ahead region of its sequences: 2048, 2049, ...), and
// keep the house shape: entry id = the receipt's, the receipt field first,
// stream order = id order.
func testContendedAppend(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "contended")
	now, err := c.EngineTime(ctx)
	require.NoError(t, err)
	// Node 1023 with sequence 0, 400 ms ahead: whatever this client's node,
	// the ids above it are (top's ms, 1023<<12 | 2048, 2049, ...) while the
	// clock is behind (a fresh queue: its ahead cell starts empty).
	top := at(t, now.Add(400*time.Millisecond), echomq.MaxNode, 0)
	_, err = rawcmd.Do(ctx, c, "XADD", s.Key(), top.EntryID().String(), "id", top.String(), "n", "top")
	require.NoError(t, err)
	want := []echomq.ID{top}
	var payloads []string
	for i := range 12 {
		id, err := s.Append(ctx, echomq.F("n", itoa(i)), nil)
		require.NoError(t, err)
		want, payloads = append(want, id), append(payloads, itoa(i))
	}
	batch, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("n", "b0"), echomq.F("n", "b1"), echomq.F("n", "b2")}, nil)
	require.NoError(t, err)
	want, payloads = append(want, batch...), append(payloads, "b0", "b1", "b2")
	st := echomq.AppendStatsOf(c)
	require.Positive(t, st.Contended, "%+v", st)
	require.EqualValues(t, 2, st.Refused, "only the first append tried plain XADDs: %+v", st)
	for i, id := range want[1:] {
		if !id.Time().Equal(top.Time()) {
			continue // the clock reached the top's millisecond: the rule moved on
		}
		require.Equal(t, echomq.EngineNode, id.Snowflake().Node(), "record %d: %v", i, id)
		require.Equal(t, 2048+i, id.Snowflake().Seq(), "record %d: %v", i, id)
	}
	raw, err := rawcmd.Do(ctx, c, "XRANGE", s.Key(), "-", "+")
	require.NoError(t, err)
	entries := raw.([]any)
	require.Len(t, entries, len(want))
	for i, e := range entries {
		entry := e.([]any)
		fields := entry[1].([]any)
		require.Equal(t, want[i].EntryID().String(), entry[0], "entry %d", i)
		require.Equal(t, []any{"id", want[i].String()}, fields[:2], "entry %d", i)
		if i > 0 {
			require.Equal(t, []any{"n", payloads[i-1]}, fields[2:], "entry %d", i)
			require.Positive(t, want[i].Compare(want[i-1]), "entry %d", i)
		}
	}
}
