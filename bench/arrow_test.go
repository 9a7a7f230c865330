package bench_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/retention"
)

// TestSegmentReadableByArrow: an archive segment opens with an independent
// Parquet reader (Apache Arrow's) and holds the same ids, entry ids and
// fields (binary values included) as the stream did.
func TestSegmentReadableByArrow(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	store, err := fsstore.New(t.TempDir())
	require.NoError(t, err)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "guess-scored")
	recs := make([]echomq.Fields, 8)
	for i := range recs {
		recs[i] = echomq.F("n", strconv.Itoa(i), "blob", "\x00\xffbinary")
	}
	_, err = s.AppendBatch(ctx, recs, nil)
	require.NoError(t, err)
	want, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)

	a, err := archive.New(c, store, &archive.Config{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	res, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: "guess-scored", Keep: retention.MaxLen(3)})
	require.NoError(t, err)
	require.Len(t, res.Segments, 1)
	data, err := store.Get(ctx, res.Segments[0].Name)
	require.NoError(t, err)

	got := readWithArrow(t, data)
	require.Len(t, got, 5)
	for i, ev := range got {
		require.Equal(t, want[i].ID.String(), ev.ID.String())
		require.Equal(t, want[i].Entry, ev.Entry)
		require.Equal(t, want[i].Fields, ev.Fields)
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
	for ch := range tbl.Column(0).Data().Chunks() {
		idArr := tbl.Column(0).Data().Chunk(ch).(*array.String)
		msArr := tbl.Column(1).Data().Chunk(ch).(*array.Int64)
		seqArr := tbl.Column(2).Data().Chunk(ch).(*array.Int64)
		lists := tbl.Column(3).Data().Chunk(ch).(*array.List)
		pairs := lists.ListValues().(*array.Struct)
		names := pairs.Field(0).(*array.Binary)
		values := pairs.Field(1).(*array.Binary)
		for i := range idArr.Len() {
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
