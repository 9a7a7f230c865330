package archive_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
)

// TestOneCycleMaxLen is the first acceptance scenario: one cycle over 8
// entries with maxlen 3 archives the 5 oldest, leaves the 3 newest live,
// and the merged read returns all 8 in order; the segment opens with an
// independent Parquet reader (Apache Arrow's) and holds the same ids and
// fields.
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
			w, ok, err := s.GetArchived(ctx)
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

			// The segment, read by another Parquet implementation.
			data, err := store.Get(ctx, res.Segments[0].Name)
			require.NoError(t, err)
			got := readWithArrow(t, data)
			require.Len(t, got, 5)
			for i, ev := range got {
				require.Equal(t, want[i].ID.String(), ev.ID.String())
				require.Equal(t, want[i].Entry, ev.Entry)
				require.Equal(t, want[i].Fields, ev.Fields)
			}

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

// readWithArrow decodes a segment with Apache Arrow's Parquet reader.
func readWithArrow(t *testing.T, data []byte) []echomq.Event {
	t.Helper()
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	require.NoError(t, err)
	defer rdr.Close()
	stream := rdr.MetaData().KeyValueMetadata().FindValue("echomq.stream")
	require.NotNil(t, stream)
	require.Equal(t, "guess-scored", *stream)
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	schema := tbl.Schema()
	require.Equal(t, []string{"id", "ms", "seq", "fields"}, []string{schema.Field(0).Name, schema.Field(1).Name, schema.Field(2).Name, schema.Field(3).Name})
	var out []echomq.Event
	idc := tbl.Column(0).Data().Chunks()
	for ch := range idc {
		idArr := tbl.Column(0).Data().Chunk(ch).(*array.String)
		msArr := tbl.Column(1).Data().Chunk(ch).(*array.Int64)
		seqArr := tbl.Column(2).Data().Chunk(ch).(*array.Int64)
		lists := tbl.Column(3).Data().Chunk(ch).(*array.List)
		pairs := lists.ListValues().(*array.Struct)
		names := pairs.Field(0).(*array.Binary)
		values := pairs.Field(1).(*array.Binary)
		for i := 0; i < idArr.Len(); i++ {
			id, err := echomq.ParseEventID(idArr.Value(i))
			require.NoError(t, err)
			ev := echomq.Event{ID: id, Entry: echomq.EntryID{Ms: uint64(msArr.Value(i)), Seq: uint64(seqArr.Value(i))}, Fields: echomq.Fields{}}
			start, end := lists.ValueOffsets(i)
			for j := start; j < end; j++ {
				ev.Fields = append(ev.Fields, string(names.Value(int(j))), string(values.Value(int(j))))
			}
			out = append(out, ev)
		}
	}
	return out
}
