package echomq_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// TestFollowResumesThroughEngineRestart kills the engine under a follower
// and restarts it from its append-only file: the follower yields one
// ErrUnavailable for the outage, then resumes from its position, so it sees
// every acknowledged event once, in order.
func TestFollowResumesThroughEngineRestart(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	c := faultClient(t, srv.URL(), echomq.Config{})
	s := c.Stream(echomqtest.Queue(t), "ev")
	const before, after = 20, 20

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tally := newFollowTally(before + after)
	var wg sync.WaitGroup
	wg.Go(func() {
		follow(tally, s.Follow(ctx, &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{}), Block: time.Second}),
			func(ev echomq.Event) string { return ev.Fields[1] })
	})
	appendN(t, s, 0, before)
	tally.wait(t, before)

	require.NoError(t, srv.Kill())
	tally.waitOutage(t)
	time.Sleep(3 * time.Second) // sleep: the outage lasts; the follower keeps retrying meanwhile
	start := time.Now()
	srv.Restart(t)
	appendN(t, s, before, after)
	tally.wait(t, after)
	t.Logf("follower resumed within %v of the restart", time.Since(start).Round(time.Millisecond))
	cancel()
	echomqtest.Join(t, &wg, 30*time.Second, "the follower to end with its context")

	got, errs := tally.result()
	want := make([]string, 0, before+after)
	for i := range before + after {
		want = append(want, itoa(i))
	}
	require.Equal(t, want, got, "every event once, in order")
	require.Len(t, errs, 1, "one error for the outage: %v", errs)
	require.ErrorIs(t, errs[0], echomq.ErrUnavailable)
}

// TestFollowPermanentErrorEnds: a permanent failure is yielded once and
// ends the iteration.
func TestFollowPermanentErrorEnds(t *testing.T) {
	t.Parallel()
	c := faultClient(t, echomqtest.Shared(t).URL(), echomq.Config{})
	q := echomqtest.Queue(t)
	_, err := rawcmd.Do(context.Background(), c, "SET", "emq:{"+q+"}:stream:plain", "v")
	require.NoError(t, err)
	n := 0
	for _, err := range c.Stream(q, "plain").Follow(context.Background(), &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{})}) {
		n++
		require.ErrorIs(t, err, echomq.ErrWrongType)
		require.NotErrorIs(t, err, echomq.ErrUnavailable)
	}
	require.Equal(t, 1, n)
}

// TestFollowStopsWhenCancelled: a follower blocked in a long XREAD BLOCK
// ends as soon as its context ends, not when the block (or the call bound
// on top of it) runs out: a stopping service must not hang for its block.
func TestFollowStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t) // its own engine: its one blocked client is the follower
	c := connect(t, echomq.Config{URL: srv.URL()})
	s := c.Stream(echomqtest.Queue(t), "idle")
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan time.Time, 1)
	go func() {
		for _, err := range s.Follow(fctx, &echomq.FollowOpts{Block: time.Minute}) {
			if err != nil {
				t.Error(err)
			}
		}
		done <- time.Now()
	}()
	// Wait for the follower to reach its blocking read: an idle stream
	// gives it nothing to return before.
	echomqtest.WaitFor(t, 30*time.Second, "the follower blocked in XREAD", func() bool {
		info, err := srv.Info("clients")
		require.NoError(t, err)
		return info["blocked_clients"] == "1"
	})
	cancelled := time.Now()
	cancel()
	select {
	case ended := <-done:
		require.Less(t, ended.Sub(cancelled), 30*time.Second, "ended long before its one-minute block")
	case <-time.After(45 * time.Second):
		t.Fatal("the follower did not end after its context did")
	}
}
