package echomq_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// TestReplayWindowIntoStream: a time window replays into a handler and
// into another stream; replaying it again into the stream appends nothing.
func TestReplayWindowIntoStream(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	q := echomqtest.Queue(t)
	src, dst := c.Stream(q, "src"), c.Stream(q, "dst")
	var ids []echomq.ID
	for i := range 10 {
		id, err := src.Append(ctx, echomq.F("n", itoa(i)), nil)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	r := echomq.Span(echomq.At(ids[2]), echomq.At(ids[6]))
	var seen []string
	res, err := echomq.Replay(ctx, src, r, &echomq.ReplayOpts{Handle: func(_ context.Context, ev echomq.Event) error {
		seen = append(seen, ev.Fields.Value("n"))
		return nil
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"2", "3", "4", "5", "6"}, seen)
	require.Equal(t, int64(5), res.Events)
	require.Equal(t, ids[2].EntryID(), res.First)
	require.Equal(t, ids[6].EntryID(), res.Last)

	for range 2 {
		res, err = echomq.Replay(ctx, src, r, &echomq.ReplayOpts{Into: dst, PageSize: 2})
		require.NoError(t, err)
		require.Equal(t, int64(5), res.Events)
	}
	got, err := dst.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, got, 5, "the second replay appended nothing")
	for i, ev := range got {
		require.Equal(t, itoa(i+2), ev.Fields.Value("n"))
	}

	stop := errors.New("stop")
	res, err = echomq.Replay(ctx, src, echomq.All, &echomq.ReplayOpts{Handle: func(_ context.Context, ev echomq.Event) error {
		if ev.ID == ids[3] {
			return stop
		}
		return nil
	}})
	require.ErrorIs(t, err, stop)
	require.Equal(t, int64(3), res.Events)
}

func TestReplayBadInput(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	q := echomqtest.Queue(t)
	src := c.Stream(q, "src")
	h := func(context.Context, echomq.Event) error { return nil }
	tests := []struct {
		name string
		src  echomq.EventSource
		r    echomq.Range
		opts *echomq.ReplayOpts
		want error
	}{
		{"nil source", nil, echomq.All, &echomq.ReplayOpts{Handle: h}, echomq.ErrInvalidArgument},
		{"no target", src, echomq.All, &echomq.ReplayOpts{}, echomq.ErrInvalidArgument},
		{"two targets", src, echomq.All, &echomq.ReplayOpts{Handle: h, Into: c.Stream(q, "dst")}, echomq.ErrInvalidArgument},
		{"negative page", src, echomq.All, &echomq.ReplayOpts{Handle: h, PageSize: -1}, echomq.ErrInvalidArgument},
		{"bad target name", src, echomq.All, &echomq.ReplayOpts{Into: c.Stream(q, "a b")}, echomq.ErrInvalidName},
		{"bad source name", c.Stream(q, "a:b"), echomq.All, &echomq.ReplayOpts{Handle: h}, echomq.ErrInvalidName},
		{"inverted range", src, echomq.Span(echomq.Inclusive(echomq.EntryID{Ms: 9}), echomq.Inclusive(echomq.EntryID{Ms: 1})), &echomq.ReplayOpts{Handle: h}, echomq.ErrInvalidRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := echomq.Replay(ctx, tt.src, tt.r, tt.opts)
			require.ErrorIs(t, err, tt.want)
		})
	}
	evs, err := c.Stream(q, "dst").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Empty(t, evs)
}
