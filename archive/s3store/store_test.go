package s3store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/archivetest"
	"github.com/echomq/echomq/archive/s3store"
	"github.com/echomq/echomq/archive/s3store/s3test"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	archivetest.Run(t, func(t *testing.T) archive.Store { return srv.NewStore(t) })
}

func TestPrefix(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	base := srv.NewStore(t)
	ctx := context.Background()
	require.NoError(t, base.Put(ctx, "other/x", []byte("x"), nil))
	objs, err := base.List(ctx, "")
	require.NoError(t, err)
	require.Len(t, objs, 1)
	cfg := srv.Config(bucketOf(t, srv))
	cfg.Prefix = "archives/"
	s, err := s3store.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, "queue=q/stream=s/segments/a.parquet", []byte("a"), nil))
	objs, err = s.List(ctx, "")
	require.NoError(t, err)
	require.Len(t, objs, 1, "a prefixed store sees only its own objects")
	objs, err = base.List(ctx, "archives/")
	require.NoError(t, err)
	require.Equal(t, "archives/queue=q/stream=s/segments/a.parquet", objs[0].Name)
}

// bucketOf finds the bucket name of a store made by srv.NewStore: the only
// directory the posix backend created for it.
func bucketOf(t *testing.T, srv *s3test.Server) string {
	t.Helper()
	entries, err := osReadDir(srv.Dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	return entries[0]
}

func TestNewBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []*s3store.Config{
		nil,
		{Bucket: "b"},
		{Endpoint: "127.0.0.1:1"},
		{Endpoint: "127.0.0.1:1", Bucket: "b", Prefix: "no-slash"},
		{Endpoint: "127.0.0.1:1", Bucket: "b", Prefix: "../x/"},
		{Endpoint: "127.0.0.1:1", Bucket: "b", MaxRetries: -1},
	} {
		_, err := s3store.New(cfg)
		require.ErrorIs(t, err, echomq.ErrInvalidArgument, "%+v", cfg)
	}
}

// TestUnreachable shows a stopped server fails every call, quickly, and
// that the store works again once the server is back.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	s := srv.NewStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, s.Put(ctx, "a/b", []byte("1"), nil))
	srv.Kill()
	require.Error(t, s.Put(ctx, "a/c", []byte("2"), nil))
	_, err := s.Get(ctx, "a/b")
	require.Error(t, err)
	require.NotErrorIs(t, err, archive.ErrNotFound, "an unreachable store is not an empty one")
	_, err = s.List(ctx, "a/")
	require.Error(t, err)
	srv.Restart(t)
	b, err := s.Get(ctx, "a/b")
	require.NoError(t, err)
	require.Equal(t, "1", string(b))
}
