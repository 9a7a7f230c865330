package lanes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/rawcmd"
)

// TestFullEngine: on an engine at its maxmemory (noeviction) a queue
// refuses new jobs with ErrEngineFull, while the work that settles, renews
// or moves jobs (claim, complete, fail, kill, release, extend, the
// janitor) and the inspection views keep running.
func TestFullEngine(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t, "--maxmemory", "64mb", "--maxmemory-policy", "noeviction")
	c := connect(t, srv.URL())
	q, err := lanes.New(c, echomqtest.Queue(t), nil)
	require.NoError(t, err)
	for i := range 20 {
		enqueue(t, q, "l"+string(rune('a'+i%8)), "p")
	}
	jobs, err := q.Claim(ctx, 6, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 6)
	// Full: maxmemory below what a bare engine uses.
	_, err = rawcmd.Do(ctx, c, "CONFIG", "SET", "maxmemory", "100kb")
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = rawcmd.Do(context.Background(), c, "CONFIG", "SET", "maxmemory", "64mb") })

	_, err = q.Enqueue(ctx, "x", []byte("p"), nil)
	require.ErrorIs(t, err, echomq.ErrEngineFull)
	require.NotErrorIs(t, err, echomq.ErrUnavailable)

	more, err := q.Claim(ctx, 2, time.Minute)
	require.NoError(t, err)
	require.Len(t, more, 2)
	require.NoError(t, q.Complete(ctx, jobs[0]))
	_, err = q.Fail(ctx, jobs[1], time.Second, errors.New("boom"))
	require.NoError(t, err)
	require.NoError(t, q.Kill(ctx, jobs[2], errors.New("boom")))
	require.NoError(t, q.Release(ctx, jobs[3]))
	lost, err := q.Extend(ctx, time.Minute, jobs[4], jobs[5])
	require.NoError(t, err)
	require.Empty(t, lost)
	_, err = q.Sweep(ctx)
	require.NoError(t, err)
	st, err := q.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Dead)
}
