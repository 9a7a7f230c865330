package archive_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
)

// TestOneCycleMaxLen is the first acceptance scenario: one cycle over 8
// entries with maxlen 3 archives the 5 oldest, leaves the 3 newest live,
// and the merged read returns all 8 in order. (Module bench opens such a
// segment with an independent Parquet reader, Apache Arrow's.)
func TestOneCycleMaxLen(t *testing.T) {
	t.Parallel()
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := newClient(t)
			store := newStore(t, kind)
			q := echomqtest.Queue(t)
			s := c.Stream(q, "guess-scored")
			all := appendN(t, s, 0, 8)
			want, err := s.Read(ctx, echomq.All, nil)
			require.NoError(t, err)

			a := newArchiver(t, c, store, nil)
			res, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: "guess-scored", Keep: keep(3)})
			require.NoError(t, err)
			require.Equal(t, int64(5), res.Folded)
			require.Equal(t, int64(5), res.Trimmed)
			require.Equal(t, all[4], res.Watermark)
			require.Len(t, res.Segments, 1)
			require.Equal(t, uint64(1), res.Generation)

			require.Equal(t, all[5:], liveIDs(t, s), "live = the 3 newest")
			w, ok, err := archive.Watermark(ctx, s)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, all[4], w, "W cached")

			merged, err := a.Reader(q, "guess-scored").Read(ctx, echomq.All, nil)
			require.NoError(t, err)
			require.Len(t, merged, 8)
			for i, ev := range merged {
				require.Equal(t, want[i], ev.Event, "event %d", i)
				require.Equal(t, i < 5, ev.Archived, "event %d origin", i)
			}

			data, err := store.Get(ctx, res.Segments[0].Name)
			require.NoError(t, err)

			st, err := a.Status(ctx, q, "guess-scored")
			require.NoError(t, err)
			require.Equal(t, all[4], st.Watermark)
			require.Equal(t, all[4].Time(), st.WatermarkTime())
			require.Equal(t, 1, st.Segments)
			require.Equal(t, int64(5), st.Entries)
			require.Equal(t, int64(len(data)), st.Bytes)
			require.Equal(t, int64(3), st.Live.Length)
			require.False(t, st.CacheMismatch)
		})
	}
}
