package fsstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/archivetest"
	"github.com/echomq/echomq/archive/fsstore"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	archivetest.Run(t, func(t *testing.T) archive.Store {
		s, err := fsstore.New(t.TempDir())
		require.NoError(t, err)
		return s
	})
}

func TestNew(t *testing.T) {
	t.Parallel()
	_, err := fsstore.New("")
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	dir := filepath.Join(t.TempDir(), "a", "b")
	s, err := fsstore.New(dir)
	require.NoError(t, err)
	require.Equal(t, dir, s.Root())
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	require.True(t, fi.IsDir())
}

// TestLayout shows that objects are plain files, and that a torn write (a
// temporary file left by a crash) is not an object.
func TestLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := fsstore.New(dir)
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, "queue=q/stream=s/segments/x.parquet", []byte("PAR1"), nil))
	b, err := os.ReadFile(filepath.Join(dir, "queue=q", "stream=s", "segments", "x.parquet"))
	require.NoError(t, err)
	require.Equal(t, "PAR1", string(b))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queue=q", "stream=s", "segments", ".tmp-dead"), []byte("torn"), 0o644))
	objs, err := s.List(ctx, "queue=q/")
	require.NoError(t, err)
	require.Len(t, objs, 1)
}

// TestLockAcrossStores shows two stores on one directory (two archivers)
// exclude each other.
func TestLockAcrossStores(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	a, err := fsstore.New(dir)
	require.NoError(t, err)
	b, err := fsstore.New(dir)
	require.NoError(t, err)
	unlock, err := a.Lock(ctx, "queue=q/stream=s/lock")
	require.NoError(t, err)
	_, err = b.Lock(ctx, "queue=q/stream=s/lock")
	require.ErrorIs(t, err, archive.ErrLocked)
	require.NoError(t, unlock())
	unlock, err = b.Lock(ctx, "queue=q/stream=s/lock")
	require.NoError(t, err)
	require.NoError(t, unlock())
	require.NoError(t, unlock(), "unlock is idempotent")
}
