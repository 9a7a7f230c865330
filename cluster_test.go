package echomq_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/tables"
)

// TestCluster: on a 3-master Redis Cluster, append, read and window work on
// queues whose keys land on different slots (and masters), and every key of
// one queue shares its slot.
func TestCluster(t *testing.T) {
	t.Parallel()
	cl := echomqtest.StartCluster(t)
	c := connect(t, echomq.Config{URL: cl.URL()})
	require.True(t, c.Engine().Cluster, "Connect learns the cluster")
	require.True(t, c.Engine().Checked)
	base := echomqtest.Queue(t)
	masters := map[string]bool{}
	for i := range 12 {
		q := fmt.Sprintf("%s.%d", base, i)
		s := c.Stream(q, "room-opened")
		t0 := time.Now()
		var want []echomq.ID
		for j := range 3 {
			id, err := s.Append(ctx, echomq.F("room", strconv.Itoa(j)), nil)
			require.NoError(t, err)
			want = append(want, id)
		}
		evs, err := s.Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		require.Equal(t, want, ids(evs))
		evs, err = s.Read(ctx, echomq.Window(t0.Add(-time.Second), time.Now().Add(time.Second)), nil)
		require.NoError(t, err)
		require.Equal(t, want, ids(evs))
		require.NoError(t, archive.SetWatermark(ctx, s, want[0]))
		w, ok, err := archive.Watermark(ctx, s)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, want[0], w)

		slot, err := rawcmd.Do(ctx, c, "CLUSTER", "KEYSLOT", s.Key())
		require.NoError(t, err)
		archSlot, err := rawcmd.Do(ctx, c, "CLUSTER", "KEYSLOT", s.Key()+":archived")
		require.NoError(t, err)
		require.Equal(t, slot, archSlot, "a queue's keys share one slot")
		masters[strconv.FormatInt(slot.(int64)*3/16384, 10)] = true

		// A transaction over the queue's records and streams runs on its slot.
		require.NoError(t, tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
			if err := tx.Put("rooms", "ROM1", []byte("open")); err != nil {
				return err
			}
			_, err := tx.Append(ctx, "room-opened", echomq.F("room", "ROM1"))
			return err
		}, nil))
		v, ok, err := tables.New(c, q, "rooms").Get(ctx, "ROM1")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "open", string(v))
	}
	require.Greater(t, len(masters), 1, "the queues spread over several masters")
}
