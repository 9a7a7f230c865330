package partition_test

import (
	"strconv"
	"sync"
	"testing"

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
			<-start
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
