package partition_test

import (
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/rawcmd"
)

// TestReceiptsUniqueAcrossPartitions: writers lease their node ids in the
// logical queue, not in each partition's queue, so ids minted in the
// partitions of one queue never repeat. With leases per partition's
// queue, two clients holding the same node id in two partitions minted the
// same ids in the same millisecond, and a merged read met two events of
// one receipt. Here every node id but 5 is held in the queues of
// partitions 0 and 1, as other writers would: leased per partition, both
// clients would mint as node 5.
func TestReceiptsUniqueAcrossPartitions(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	q := echomqtest.Queue(t)
	a, b := connect(t, url), connect(t, url)
	s, err := partition.Create(ctx, a, q, "orders", 8)
	require.NoError(t, err)
	for _, p := range []int{0, 1} {
		for n := range 1023 {
			if n != 5 {
				_, err := rawcmd.Do(ctx, a, "SET", "emq:{"+s.Partition(p).Queue()+"}:node:"+strconv.Itoa(n), "held", "EX", "300")
				require.NoError(t, err)
			}
		}
	}
	const per = 5000
	var (
		mu   sync.Mutex
		seen = map[echomq.ID]int{}
		wg   sync.WaitGroup
	)
	// Each client takes its lease first (its first mint); then both mint
	// at once, in the same milliseconds.
	start := make(chan struct{})
	var leased sync.WaitGroup
	for p, c := range []*echomq.Client{a, b} {
		leased.Add(1)
		wg.Go(func() {
			got := make([]echomq.ID, 0, per)
			id, err := c.MintID(ctx, s.Partition(p).Queue(), "EVT")
			leased.Done()
			if err != nil {
				t.Error(err)
				return
			}
			got = append(got, id)
			<-start // bounded: every goroutine passes leased.Done() before it can return, and the test closes start right after leased.Wait()
			for range per - 1 {
				id, err := c.MintID(ctx, s.Partition(p).Queue(), "EVT")
				if err != nil {
					t.Error(err)
					return
				}
				got = append(got, id)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, id := range got {
				seen[id]++
			}
		})
	}
	leased.Wait()
	close(start)
	wg.Wait()
	twice := 0
	for _, n := range seen {
		if n > 1 {
			twice++
		}
	}
	require.Zero(t, twice, "ids minted twice across the partitions")
	require.Len(t, seen, 2*per)
}

// TestEngineIDsUniqueAcrossPartitions: when writers contend for a
// partition's top (a writer whose clock lags another's), the engine
// chooses the ids, from the partition's own cells; the partitions of a
// stream take disjoint sequences of each millisecond, so those ids never
// coincide across partitions either. Two partitions, each with a writer on
// time and one 50 ms behind, append at once; the receipts of both
// partitions are distinct and the engine chose ids in both.
func TestEngineIDsUniqueAcrossPartitions(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	q := echomqtest.Queue(t)
	behind := func() time.Time { return time.Now().Add(-50 * time.Millisecond) }
	mk := func(clock echomq.Clock) *echomq.Client {
		c, err := echomq.Connect(ctx, &echomq.Config{URL: url, Notice: io.Discard, Clock: clock})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, c.Close()) })
		return c
	}
	c0 := mk(nil)
	s, err := partition.Create(ctx, c0, q, "orders", 8)
	require.NoError(t, err)
	writers := []*echomq.Client{c0, mk(behind)}
	const per = 1500
	var wg sync.WaitGroup
	for _, p := range []int{0, 1} {
		for _, c := range writers {
			st := c.Stream(s.Partition(p).Queue(), "orders")
			wg.Go(func() {
				for i := range per {
					if _, err := st.Append(ctx, echomq.F("n", strconv.Itoa(i)), nil); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	seen := map[echomq.ID]int{}
	engine := [2]int{}
	for _, p := range []int{0, 1} {
		for ev, err := range s.Partition(p).Scan(ctx, echomq.All, nil) {
			require.NoError(t, err)
			seen[ev.ID]++
			if ev.ID.Snowflake().Node() == 1023 {
				engine[p]++
			}
		}
	}
	twice := 0
	for _, n := range seen {
		if n > 1 {
			twice++
		}
	}
	t.Logf("engine-chosen ids: %d in partition 0, %d in partition 1", engine[0], engine[1])
	require.Zero(t, twice, "receipts shared across the partitions")
	require.Len(t, seen, 2*len(writers)*per)
	require.Positive(t, engine[0], "the engine chose ids in partition 0")
	require.Positive(t, engine[1], "the engine chose ids in partition 1")
}
