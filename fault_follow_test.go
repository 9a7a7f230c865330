package echomq_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
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
	var (
		mu     sync.Mutex
		got    []string
		errs   []error
		wg     sync.WaitGroup
		seen   = make(chan struct{}, before+after)
		outage = make(chan struct{}, 1)
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ev, err := range s.Follow(ctx, &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{}), Block: time.Second}) {
			mu.Lock()
			if err != nil {
				errs = append(errs, err)
				mu.Unlock()
				select {
				case outage <- struct{}{}:
				default:
				}
				if !errors.Is(err, echomq.ErrUnavailable) {
					return
				}
				continue
			}
			got = append(got, ev.Fields[1])
			mu.Unlock()
			seen <- struct{}{}
		}
	}()
	waitN := func(n int) {
		for range n {
			select {
			case <-seen:
			case <-time.After(30 * time.Second):
				t.Fatal("follower stalled")
			}
		}
	}
	appendN(t, s, 0, before)
	waitN(before)

	require.NoError(t, srv.Kill())
	select {
	case <-outage:
	case <-time.After(30 * time.Second):
		t.Fatal("the follower did not report the outage")
	}
	time.Sleep(3 * time.Second) // the follower keeps retrying meanwhile
	start := time.Now()
	srv.Restart(t)
	appendN(t, s, before, after)
	waitN(after)
	t.Logf("follower resumed within %v of the restart", time.Since(start).Round(time.Millisecond))
	cancel()
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
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
	_, err := c.Do(context.Background(), "SET", "emq:{"+q+"}:stream:plain", "v")
	require.NoError(t, err)
	n := 0
	for _, err := range c.Stream(q, "plain").Follow(context.Background(), &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{})}) {
		n++
		require.ErrorIs(t, err, echomq.ErrWrongType)
		require.NotErrorIs(t, err, echomq.ErrUnavailable)
	}
	require.Equal(t, 1, n)
}
