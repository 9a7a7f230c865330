package archivetest

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
)

// Run runs the conformance suite against stores made by newStore, one per
// subtest.
func Run(t *testing.T, newStore func(t *testing.T) archive.Store) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s archive.Store)
	}{
		{"PutGet", testPutGet},
		{"Replace", testReplace},
		{"IfAbsent", testIfAbsent},
		{"IfAbsentRace", testIfAbsentRace},
		{"List", testList},
		{"BadNames", testBadNames},
		{"Large", testLarge},
		{"Delete", testDelete},
		{"Lock", testLock},
		{"GetLimit", testGetLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

func testPutGet(t *testing.T, s archive.Store) {
	ctx := context.Background()
	for _, data := range [][]byte{[]byte("hello"), {0, 1, 2, 255, '\n', 0}, {}} {
		name := "queue=q/stream=s/segments/obj-" + strings.Repeat("x", len(data)+1)
		require.NoError(t, s.Put(ctx, name, data, nil))
		got, err := s.Get(ctx, name)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got), "round trip of %q: got %q", data, got)
	}
	_, err := s.Get(ctx, "queue=q/stream=s/missing")
	require.ErrorIs(t, err, archive.ErrNotFound)
}

func testReplace(t *testing.T, s archive.Store) {
	ctx := context.Background()
	require.NoError(t, s.Put(ctx, "a/b.json", []byte("one"), nil))
	require.NoError(t, s.Put(ctx, "a/b.json", []byte("two, longer"), &archive.PutOpts{}))
	got, err := s.Get(ctx, "a/b.json")
	require.NoError(t, err)
	require.Equal(t, "two, longer", string(got))
	objs, err := s.List(ctx, "a/")
	require.NoError(t, err)
	require.Len(t, objs, 1)
	require.Equal(t, int64(len("two, longer")), objs[0].Size)
}

func testIfAbsent(t *testing.T, s archive.Store) {
	ctx := context.Background()
	excl := &archive.PutOpts{IfAbsent: true}
	require.NoError(t, s.Put(ctx, "m/00000000000000000001.json", []byte("first"), excl))
	err := s.Put(ctx, "m/00000000000000000001.json", []byte("second"), excl)
	require.ErrorIs(t, err, archive.ErrExists)
	got, err := s.Get(ctx, "m/00000000000000000001.json")
	require.NoError(t, err)
	require.Equal(t, "first", string(got), "a refused exclusive put changes nothing")
}

func testIfAbsentRace(t *testing.T, s archive.Store) {
	ctx := context.Background()
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = s.Put(ctx, "race/gen.json", []byte{byte('a' + i)}, &archive.PutOpts{IfAbsent: true})
		})
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		if err == nil {
			require.Equal(t, -1, won, "two exclusive puts of one name succeeded")
			won = i
			continue
		}
		require.ErrorIs(t, err, archive.ErrExists)
	}
	require.NotEqual(t, -1, won, "no exclusive put succeeded")
	got, err := s.Get(ctx, "race/gen.json")
	require.NoError(t, err)
	require.Equal(t, []byte{byte('a' + won)}, got)
}

func testList(t *testing.T, s archive.Store) {
	ctx := context.Background()
	names := []string{
		"queue=q/stream=b/x", "queue=q/stream=a/segments/2.parquet", "queue=q/stream=a/segments/1.parquet",
		"queue=q/stream=a/manifests/00000000000000000001.json", "queue=q/stream=ab/y", "queue=r/stream=a/z", "top",
	}
	for i, n := range names {
		require.NoError(t, s.Put(ctx, n, bytes.Repeat([]byte{'x'}, i+1), nil))
	}
	list := func(prefix string) []string {
		objs, err := s.List(ctx, prefix)
		require.NoError(t, err)
		out := make([]string, 0, len(objs))
		for _, o := range objs {
			out = append(out, o.Name)
			require.False(t, o.ModTime.IsZero(), o.Name)
		}
		return out
	}
	require.Equal(t, []string{"queue=q/stream=a/manifests/00000000000000000001.json", "queue=q/stream=a/segments/1.parquet", "queue=q/stream=a/segments/2.parquet"}, list("queue=q/stream=a/"))
	require.Equal(t, []string{
		"queue=q/stream=a/manifests/00000000000000000001.json", "queue=q/stream=a/segments/1.parquet",
		"queue=q/stream=a/segments/2.parquet", "queue=q/stream=ab/y",
	}, list("queue=q/stream=a"))
	require.Equal(t, []string{"queue=q/stream=a/segments/1.parquet", "queue=q/stream=a/segments/2.parquet"}, list("queue=q/stream=a/segments/"))
	require.Len(t, list(""), len(names))
	require.Empty(t, list("queue=none/"))
	objs, err := s.List(ctx, "queue=q/stream=a/segments/1")
	require.NoError(t, err)
	require.Len(t, objs, 1)
	require.Equal(t, int64(3), objs[0].Size)
}

func testBadNames(t *testing.T, s archive.Store) {
	ctx := context.Background()
	for _, name := range []string{"", "/abs", "trailing/", "a//b", "../up", "a/../b", ".hidden", "a/.tmp-x", "sp ace", "nul\x00", "back\\slash", "ü", strings.Repeat("x", 1025)} {
		t.Run(strings.ToValidUTF8(name, "?"), func(t *testing.T) {
			err := s.Put(ctx, name, []byte("x"), nil)
			var ae *echomq.ArgumentError
			require.ErrorAs(t, err, &ae, "put %q: %v", name, err)
			require.ErrorIs(t, err, echomq.ErrInvalidArgument)
			_, err = s.Get(ctx, name)
			require.ErrorIs(t, err, echomq.ErrInvalidArgument)
			if d, ok := s.(archive.Deleter); ok {
				require.ErrorIs(t, d.Delete(ctx, name), echomq.ErrInvalidArgument)
			}
		})
	}
	_, err := s.List(ctx, "../")
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	objs, err := s.List(ctx, "")
	require.NoError(t, err)
	require.Empty(t, objs, "a refused name writes nothing")
}

func testLarge(t *testing.T, s archive.Store) {
	ctx := context.Background()
	data := make([]byte, 6<<20)
	for i := range data {
		data[i] = byte(i * 7919 >> 3)
	}
	require.NoError(t, s.Put(ctx, "big/seg.parquet", data, &archive.PutOpts{IfAbsent: true}))
	got, err := s.Get(ctx, "big/seg.parquet")
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
}

func testDelete(t *testing.T, s archive.Store) {
	d, ok := s.(archive.Deleter)
	if !ok {
		t.Skip("the store is not an archive.Deleter")
	}
	ctx := context.Background()
	require.NoError(t, s.Put(ctx, "d/one", []byte("1"), nil))
	require.NoError(t, s.Put(ctx, "d/two", []byte("2"), nil))
	require.NoError(t, d.Delete(ctx, "d/one"))
	require.NoError(t, d.Delete(ctx, "d/one"), "deleting a missing object is not an error")
	_, err := s.Get(ctx, "d/one")
	require.ErrorIs(t, err, archive.ErrNotFound)
	objs, err := s.List(ctx, "d/")
	require.NoError(t, err)
	require.Len(t, objs, 1)
	require.Equal(t, "d/two", objs[0].Name)
	// An exclusive put succeeds again once the name is gone.
	require.NoError(t, s.Put(ctx, "d/one", []byte("again"), &archive.PutOpts{IfAbsent: true}))
}

func testLock(t *testing.T, s archive.Store) {
	l, ok := s.(archive.Locker)
	if !ok {
		t.Skip("the store is not an archive.Locker")
	}
	ctx := context.Background()
	unlock, err := l.Lock(ctx, "queue=q/stream=s/lock")
	require.NoError(t, err)
	_, err = l.Lock(ctx, "queue=q/stream=s/lock")
	require.ErrorIs(t, err, archive.ErrLocked)
	other, err := l.Lock(ctx, "queue=q/stream=t/lock")
	require.NoError(t, err, "locks of other names are independent")
	require.NoError(t, other())
	require.NoError(t, unlock())
	again, err := l.Lock(ctx, "queue=q/stream=s/lock")
	require.NoError(t, err)
	require.NoError(t, again())
	objs, err := s.List(ctx, "")
	require.NoError(t, err)
	require.Empty(t, objs, "locks are not objects")
	_, err = l.Lock(ctx, "../x")
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}

// testGetLimit: a store with [archive.LimitGetter] returns a small object
// whole and at most max+1 bytes of a larger one.
func testGetLimit(t *testing.T, s archive.Store) {
	lg, ok := s.(archive.LimitGetter)
	if !ok {
		t.Skip("the store has no GetLimit")
	}
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789"), 100)
	require.NoError(t, s.Put(ctx, "limit/obj", data, nil))
	for _, tc := range []struct {
		max  int64
		want int
	}{{1000, 1000}, {5000, 1000}, {999, 1000}, {10, 11}, {0, 1}} {
		got, err := lg.GetLimit(ctx, "limit/obj", tc.max)
		require.NoError(t, err)
		require.Len(t, got, tc.want, "max %d", tc.max)
		require.True(t, bytes.Equal(data[:tc.want], got))
	}
	_, err := lg.GetLimit(ctx, "limit/missing", 10)
	require.ErrorIs(t, err, archive.ErrNotFound)
}
