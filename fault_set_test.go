package echomq_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// appendSetN appends items from..from+n-1 over the streams, item i to
// stream i mod len(streams).
func appendSetN(t *testing.T, streams []*echomq.Stream, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		_, err := streams[i%len(streams)].Append(context.Background(), echomq.Fields{"n", itoa(i)}, nil)
		require.NoError(t, err)
	}
}

// TestSetFollowerResumesThroughEngineRestart kills the engine under a
// follower of a prefix set and restarts it from its append-only file: the
// follower yields one ErrUnavailable for the outage, logs it and its end
// once, then resumes from every stream's position: every event once, in
// entry-id order.
func TestSetFollowerResumesThroughEngineRestart(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	log := &echomqtest.Logs{}
	c := faultClient(t, srv.URL(), echomq.Config{Logger: log.Logger()})
	q := echomqtest.Queue(t)
	streams := []*echomq.Stream{c.Stream(q, "ev-a"), c.Stream(q, "ev-b")}
	const before, after = 20, 20
	appendSetN(t, streams, 0, 2) // both streams exist before the first discovery
	f, err := c.StreamsPrefix(q, "ev-").Follower(&echomq.SetFollowOpts{
		Start: echomq.StartHead, Block: time.Second,
		Settle: 100 * time.Millisecond, Discover: 200 * time.Millisecond,
	})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tally := newFollowTally(before + after)
	var ids []echomq.EntryID // written by the loop only, read after it ended
	var wg sync.WaitGroup
	wg.Go(func() {
		follow(tally, f.Follow(ctx), func(ev echomq.SetEvent) string { ids = append(ids, ev.Entry); return ev.Fields[1] })
	})
	appendSetN(t, streams, 2, before-2)
	tally.wait(t, before)

	require.NoError(t, srv.Kill())
	tally.waitOutage(t)
	time.Sleep(3 * time.Second) // sleep: the outage lasts; the follower keeps retrying meanwhile
	srv.Restart(t)
	appendSetN(t, streams, before, after)
	tally.wait(t, after)
	cancel()
	echomqtest.Join(t, &wg, 30*time.Second, "the follower to end with its context")

	got, errs := tally.result()
	want := make([]string, 0, before+after)
	for i := range before + after {
		want = append(want, itoa(i))
	}
	require.ElementsMatch(t, want, got, "every event once")
	require.True(t, sort.SliceIsSorted(ids, func(i, j int) bool { return ids[i].Compare(ids[j]) < 0 }), "in entry-id order")
	require.Len(t, errs, 1, "one error for the outage: %v", errs)
	require.ErrorIs(t, errs[0], echomq.ErrUnavailable)
	require.Equal(t, 1, log.Count("echomq: set follow: engine unavailable; retrying"), "%q", log.Messages())
	require.Equal(t, 1, log.Count("echomq: set follow: engine back"), "%q", log.Messages())
}

// TestSetConsumerThroughEngineRestart kills the engine under a set
// consumer and restarts it: the consumer does not stop, logs the outage
// and its end once, and handles every entry; its stop is logged with its
// reason.
func TestSetConsumerThroughEngineRestart(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	log := &echomqtest.Logs{}
	c := faultClient(t, srv.URL(), echomq.Config{Logger: log.Logger()})
	q := echomqtest.Queue(t)
	streams := []*echomq.Stream{c.Stream(q, "a"), c.Stream(q, "b")}
	const before, after = 20, 20
	tally := newFollowTally(4 * (before + after)) // at least once: room for repeats
	sc, err := c.SetConsumer(&echomq.SetConsumerConfig{
		Set: c.Streams(q, "a", "b"), Group: "g", Start: echomq.StartHead,
		Beat: 500 * time.Millisecond, Settle: 100 * time.Millisecond,
		Handle: func(_ context.Context, d echomq.Delivery) error { tally.add(d.Fields[1]); return nil },
	})
	require.NoError(t, err)
	require.NoError(t, sc.Start(context.Background()))
	appendSetN(t, streams, 0, before)
	tally.wait(t, before)

	require.NoError(t, srv.Kill())
	require.Eventually(t, func() bool { return log.Count("echomq: set consumer: engine unavailable; retrying") == 1 },
		30*time.Second, 50*time.Millisecond, "the consumer did not log the outage")
	time.Sleep(3 * time.Second) // sleep: the outage lasts; the consumer keeps retrying meanwhile
	select {
	case <-sc.Stopped():
		t.Fatal("the consumer stopped during the outage")
	default:
	}
	srv.Restart(t)
	appendSetN(t, streams, before, after)
	tally.wait(t, after)
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, sc.Stop(sctx))

	got, _ := tally.result()
	for i := range before + after {
		require.Contains(t, got, itoa(i), "entry %d handled", i)
	}
	require.Equal(t, 1, log.Count("echomq: set consumer: engine unavailable; retrying"), "%q", log.Messages())
	require.Equal(t, 1, log.Count("echomq: set consumer: engine back"), "%q", log.Messages())
	require.Equal(t, 1, log.Count("echomq: set consumer: stopped"), "%q", log.Messages())
}

// TestSetConsumerStopsOnPermanentError: a stream key of the wrong type is
// a permanent error: Run returns it, and the stop is logged as such.
func TestSetConsumerStopsOnPermanentError(t *testing.T) {
	t.Parallel()
	log := &echomqtest.Logs{}
	c := faultClient(t, echomqtest.Shared(t).URL(), echomq.Config{Logger: log.Logger()})
	q := echomqtest.Queue(t)
	_, err := rawcmd.Do(context.Background(), c, "SET", "emq:{"+q+"}:stream:plain", "v")
	require.NoError(t, err)
	sc, err := c.SetConsumer(&echomq.SetConsumerConfig{
		Set: c.Streams(q, "plain", "other"), Group: "g", Start: echomq.StartHead,
		Handle: func(context.Context, echomq.Delivery) error { return nil },
	})
	require.NoError(t, err)
	err = sc.Run(context.Background())
	require.ErrorIs(t, err, echomq.ErrWrongType)
	require.NotErrorIs(t, err, echomq.ErrUnavailable)
	require.Equal(t, 1, log.Count("echomq: set consumer: stopped on a permanent error"), "%q", log.Messages())
}
