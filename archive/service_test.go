package archive_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/retention"
)

// TestService: the background service archives on its tick until stopped.
func TestService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "svc")
	all := appendN(t, s, 0, 9)
	sweeps := make(chan archive.SweepResult, 16)
	a := newArchiver(t, c, newStore(t, "fs"), &archive.Config{
		Policies: []archive.Policy{{Queue: q, Stream: "svc", Keep: keep(3)}},
		Tick:     5 * time.Millisecond,
		OnSweep:  func(r archive.SweepResult) { sweeps <- r },
	})
	echomqtest.Recv(t, a.Stopped(), time.Second, "Stopped, closed before Start")
	require.NoError(t, a.Start(ctx))
	require.ErrorIs(t, a.Start(ctx), echomq.ErrRunning, "already started")
	require.ErrorIs(t, a.Run(ctx), echomq.ErrRunning, "Run is refused while started")
	first := echomqtest.Recv(t, sweeps, 30*time.Second, "the first sweep")
	require.NoError(t, first.Err())
	require.Equal(t, int64(6), first.Folded)
	more := appendN(t, s, 9, 4)
	for {
		r := echomqtest.Recv(t, sweeps, 30*time.Second, "a sweep that folds the new entries")
		require.NoError(t, r.Err())
		if r.Folded > 0 {
			require.Equal(t, int64(4), r.Folded)
			break
		}
	}
	require.NoError(t, a.Stop(ctx))
	echomqtest.Recv(t, a.Stopped(), 30*time.Second, "the archiver to stop")
	require.NoError(t, a.Stop(ctx), "stopping twice does nothing")
	require.Equal(t, append(all, more...), liveAndArchived(t, a, q, "svc"))
}

// TestBadInput: every public verb refuses bad input with a typed error and
// writes nothing.
func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	dir := t.TempDir()
	store, err := fsstore.New(dir)
	require.NoError(t, err)
	good := archive.Policy{Queue: q, Stream: "s", Keep: keep(1)}

	for _, tc := range []struct {
		name string
		run  func() error
		want error
	}{
		{"new nil client", func() error { _, err := archive.New(nil, store, nil); return err }, echomq.ErrInvalidArgument},
		{"new nil store", func() error { _, err := archive.New(c, nil, nil); return err }, echomq.ErrInvalidArgument},
		{"new negative tick", func() error { _, err := archive.New(c, store, &archive.Config{Tick: -1}); return err }, echomq.ErrInvalidArgument},
		{"new negative segment", func() error { _, err := archive.New(c, store, &archive.Config{SegmentEntries: -1}); return err }, echomq.ErrInvalidArgument},
		{"new tiny lock ttl", func() error { _, err := archive.New(c, store, &archive.Config{LockTTL: time.Millisecond}); return err }, echomq.ErrInvalidArgument},
		{"new twice", func() error {
			_, err := archive.New(c, store, &archive.Config{Policies: []archive.Policy{good, good}})
			return err
		}, echomq.ErrInvalidArgument},
		{"new bad policy", func() error {
			_, err := archive.New(c, store, &archive.Config{Policies: []archive.Policy{{Queue: "emq", Stream: "s", Keep: keep(1)}}})
			return err
		}, echomq.ErrInvalidName},
		{"cycle bad queue", func() error {
			_, err := cycle(t, c, store, archive.Policy{Queue: "a b", Stream: "s", Keep: keep(1)})
			return err
		}, echomq.ErrInvalidName},
		{"cycle bad stream", func() error {
			_, err := cycle(t, c, store, archive.Policy{Queue: q, Stream: "s:archived", Keep: keep(1)})
			return err
		}, echomq.ErrInvalidName},
		{"cycle zero rule", func() error { _, err := cycle(t, c, store, archive.Policy{Queue: q, Stream: "s"}); return err }, echomq.ErrInvalidArgument},
		{"cycle negative maxlen", func() error {
			_, err := cycle(t, c, store, archive.Policy{Queue: q, Stream: "s", Keep: keep(-1)})
			return err
		}, echomq.ErrInvalidArgument},
		{"cycle negative ago", func() error {
			_, err := cycle(t, c, store, archive.Policy{Queue: q, Stream: "s", Keep: retention.Ago(-time.Hour)})
			return err
		}, echomq.ErrInvalidArgument},
		{"read inverted", func() error {
			_, err := archive.NewReader(store, c.Stream(q, "s")).Read(ctx, echomq.Window(time.Now(), time.Now().Add(-time.Hour)), nil)
			return err
		}, echomq.ErrInvalidRange},
		{"read negative count", func() error {
			_, err := archive.NewReader(store, c.Stream(q, "s")).Read(ctx, echomq.All, &echomq.ReadOpts{Count: -1})
			return err
		}, echomq.ErrInvalidArgument},
		{"read bad name", func() error {
			_, err := archive.NewReader(store, c.Stream(q, "{x}")).Read(ctx, echomq.All, nil)
			return err
		}, echomq.ErrInvalidName},
		{"read nil store", func() error {
			_, err := archive.NewReader(nil, c.Stream(q, "s")).Read(ctx, echomq.All, nil)
			return err
		}, echomq.ErrInvalidArgument},
		{"scan negative page", func() error {
			for _, err := range archive.NewReader(store, c.Stream(q, "s")).Scan(ctx, echomq.All, &echomq.ScanOpts{PageSize: -1}) {
				return err
			}
			return nil
		}, echomq.ErrInvalidArgument},
		{"follow negative block", func() error {
			for _, err := range archive.NewReader(store, c.Stream(q, "s")).Follow(ctx, &echomq.FollowOpts{Block: -1}) {
				return err
			}
			return nil
		}, echomq.ErrInvalidArgument},
		{"restore bad source", func() error {
			_, err := newArchiver(t, c, store, nil).Restore(ctx, archive.StreamRef{Queue: q, Stream: ""}, c.Stream(q, "d"), nil)
			return err
		}, echomq.ErrInvalidName},
		{"restore bad destination", func() error {
			_, err := newArchiver(t, c, store, nil).Restore(ctx, archive.StreamRef{Queue: q, Stream: "s"}, c.Stream(q, "d d"), nil)
			return err
		}, echomq.ErrInvalidName},
		{"restore nil destination", func() error {
			_, err := newArchiver(t, c, store, nil).Restore(ctx, archive.StreamRef{Queue: q, Stream: "s"}, nil, nil)
			return err
		}, echomq.ErrInvalidArgument},
		{"restore negative batch", func() error {
			_, err := newArchiver(t, c, store, nil).Restore(ctx, archive.StreamRef{Queue: q, Stream: "s"}, c.Stream(q, "d"), &archive.RestoreOpts{BatchSize: -1})
			return err
		}, echomq.ErrInvalidArgument},
		{"gc bad name", func() error { _, err := newArchiver(t, c, store, nil).GC(ctx, q, "", nil); return err }, echomq.ErrInvalidName},
		{"status bad name", func() error { _, err := newArchiver(t, c, store, nil).Status(ctx, "emq", "s"); return err }, echomq.ErrInvalidName},
		{"load manifest bad name", func() error { _, err := archive.LoadManifest(ctx, store, q, "a/b"); return err }, echomq.ErrInvalidName},
		{"parse policy", func() error { _, err := archive.ParsePolicy(q + "/s maxlen lots"); return err }, echomq.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.run(), tc.want)
		})
	}
	objs, err := store.List(ctx, "")
	require.NoError(t, err)
	require.Empty(t, objs, "bad input wrote nothing to the store")
	keys, err := rawcmd.Do(ctx, c, "KEYS", "emq:{"+q+"}:*")
	require.NoError(t, err)
	require.Empty(t, keys, "bad input wrote nothing to the engine")
	p, err := archive.ParsePolicy(q + "/s ago 7d")
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(p.String(), "ago 168h0m0s"))
}

func cycle(t *testing.T, c *echomq.Client, store archive.Store, p archive.Policy) (archive.CycleResult, error) {
	t.Helper()
	return newArchiver(t, c, store, nil).Cycle(context.Background(), p)
}
