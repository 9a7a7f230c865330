package s3store_test

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/s3store/s3test"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/retention"
)

func TestMain(m *testing.M) { echomqtest.Main(m) }

// TestArchiveThroughOutage: archive cycles on S3, with the object store
// killed between two cycles: the cycle that cannot write aborts before any
// trim (over-retention, never loss), and the next one after the store is
// back archives what the failed one could not; a merged read returns every
// event once, in order. Without a Locker, the engine lease guards the
// stream, and it is given back.
func TestArchiveThroughOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), NodeID: new(7), Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	srv := s3test.Start(t)
	store := srv.NewStore(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "fragile")
	appendN := func(from, n int) {
		recs := make([]echomq.Fields, n)
		for i := range recs {
			recs[i] = echomq.F("n", strconv.Itoa(from+i), "blob", "\x00\xffbinary")
		}
		_, err := s.AppendBatch(ctx, recs, nil)
		require.NoError(t, err)
	}
	liveLen := func() int {
		evs, err := s.Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		return len(evs)
	}
	appendN(0, 12)
	want, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	a, err := archive.New(c, store, &archive.Config{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	pol := archive.Policy{Queue: q, Stream: "fragile", Keep: retention.MaxLen(8)}
	res, err := a.Cycle(ctx, pol)
	require.NoError(t, err)
	require.Equal(t, int64(4), res.Folded)
	appendN(12, 6)
	more, err := s.Read(ctx, echomq.Range{From: echomq.After(want[len(want)-1].ID)}, nil)
	require.NoError(t, err)
	want = append(want, more...)

	srv.Kill()
	res, err = a.Cycle(ctx, pol)
	require.Error(t, err)
	require.Zero(t, res.Trimmed)
	require.Equal(t, 14, liveLen(), "nothing was trimmed")

	srv.Restart(t)
	res, err = a.Cycle(ctx, pol)
	require.NoError(t, err)
	require.Equal(t, int64(6), res.Folded)
	require.Equal(t, 8, liveLen())
	merged, err := a.Reader(q, "fragile").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, merged, len(want))
	for i, ev := range merged {
		require.Equal(t, want[i], ev.Event, "event %d", i)
	}
	n, err := rawcmd.Do(ctx, c, "EXISTS", "emq:{"+q+"}:stream:fragile:archiver")
	require.NoError(t, err)
	require.Equal(t, int64(0), n, "the lease is given back")
}
