package echomq_test

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// appendSetN appends items from..from+n-1 over the streams, item i to
// stream i mod len(streams).
func appendSetN(t *testing.T, streams []*echomq.Stream, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		_, err := streams[i%len(streams)].Append(context.Background(), echomq.Fields{"n", itoa(i)})
		require.NoError(t, err)
	}
}

// outageLines counts the outage and recovery lines of component in log.
func outageLines(log, component string) (downs, ups int) {
	return strings.Count(log, component+": engine unavailable; retrying"), strings.Count(log, component+": engine back")
}

// TestSetFollowerResumesThroughEngineRestart kills the engine under a
// follower of a prefix set and restarts it from its append-only file: the
// follower yields one ErrUnavailable for the outage, logs it and its end
// once, then resumes from every stream's position: every event once, in
// entry-id order.
func TestSetFollowerResumesThroughEngineRestart(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	out := &syncBuffer{}
	c := faultClient(t, srv.URL(), echomq.Config{Logger: slog.New(slog.NewTextHandler(out, nil))})
	q := echomqtest.Queue(t)
	streams := []*echomq.Stream{c.Stream(q, "ev-a"), c.Stream(q, "ev-b")}
	const before, after = 20, 20
	appendSetN(t, streams, 0, 2) // both streams exist before the first discovery
	f, err := c.StreamsPrefix(q, "ev-").Follower(&echomq.SetFollowOpts{Start: echomq.StartHead, Block: time.Second,
		Settle: 100 * time.Millisecond, Discover: 200 * time.Millisecond})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu     sync.Mutex
		got    []string
		ids    []echomq.EntryID
		errs   []error
		wg     sync.WaitGroup
		seen   = make(chan struct{}, before+after)
		outage = make(chan struct{}, 1)
	)
	wg.Go(func() {
		for ev, err := range f.Follow(ctx) {
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
			ids = append(ids, ev.Entry)
			mu.Unlock()
			seen <- struct{}{}
		}
	})
	waitN := func(n int) {
		for range n {
			select {
			case <-seen:
			case <-time.After(30 * time.Second):
				t.Fatal("follower stalled")
			}
		}
	}
	appendSetN(t, streams, 2, before-2)
	waitN(before)

	require.NoError(t, srv.Kill())
	select {
	case <-outage:
	case <-time.After(30 * time.Second):
		t.Fatal("the follower did not report the outage")
	}
	time.Sleep(3 * time.Second) // the follower keeps retrying meanwhile
	srv.Restart(t)
	appendSetN(t, streams, before, after)
	waitN(after)
	cancel()
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	want := make([]string, 0, before+after)
	for i := range before + after {
		want = append(want, itoa(i))
	}
	require.ElementsMatch(t, want, got, "every event once")
	require.True(t, sort.SliceIsSorted(ids, func(i, j int) bool { return ids[i].Compare(ids[j]) < 0 }), "in entry-id order")
	require.Len(t, errs, 1, "one error for the outage: %v", errs)
	require.ErrorIs(t, errs[0], echomq.ErrUnavailable)
	downs, ups := outageLines(out.String(), "echomq: set follow")
	require.Equal(t, 1, downs, "the outage logged once:\n%s", out)
	require.Equal(t, 1, ups, "its end logged once:\n%s", out)
}

// TestSetConsumerThroughEngineRestart kills the engine under a set
// consumer and restarts it: the consumer does not stop, logs the outage
// and its end once, and handles every entry; its stop is logged with its
// reason.
func TestSetConsumerThroughEngineRestart(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	out := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(out, nil))
	c := faultClient(t, srv.URL(), echomq.Config{Logger: log})
	q := echomqtest.Queue(t)
	streams := []*echomq.Stream{c.Stream(q, "a"), c.Stream(q, "b")}
	const before, after = 20, 20
	var (
		mu   sync.Mutex
		got  = map[string]int{}
		seen = make(chan struct{}, 4*(before+after))
	)
	sc, err := c.SetConsumer(echomq.SetConsumerConfig{Set: c.Streams(q, "a", "b"), Group: "g", Start: echomq.StartHead,
		Beat: 500 * time.Millisecond, Settle: 100 * time.Millisecond,
		Handle: func(_ context.Context, d echomq.Delivery) error {
			mu.Lock()
			got[d.Fields[1]]++
			mu.Unlock()
			seen <- struct{}{}
			return nil
		}})
	require.NoError(t, err)
	require.NoError(t, sc.Start(context.Background()))
	waitN := func(n int) {
		for range n {
			select {
			case <-seen:
			case <-time.After(30 * time.Second):
				t.Fatal("consumer stalled")
			}
		}
	}
	appendSetN(t, streams, 0, before)
	waitN(before)

	require.NoError(t, srv.Kill())
	require.Eventually(t, func() bool { d, _ := outageLines(out.String(), "echomq: set consumer"); return d == 1 },
		30*time.Second, 50*time.Millisecond, "the consumer did not log the outage")
	time.Sleep(3 * time.Second) // the consumer keeps retrying meanwhile
	select {
	case <-sc.Stopped():
		t.Fatal("the consumer stopped during the outage")
	default:
	}
	srv.Restart(t)
	appendSetN(t, streams, before, after)
	waitN(after)
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, sc.Stop(sctx))

	mu.Lock()
	defer mu.Unlock()
	for i := range before + after {
		require.GreaterOrEqual(t, got[itoa(i)], 1, "entry %d handled", i)
	}
	downs, ups := outageLines(out.String(), "echomq: set consumer")
	require.Equal(t, 1, downs, "the outage logged once:\n%s", out)
	require.Equal(t, 1, ups, "its end logged once:\n%s", out)
	require.Contains(t, out.String(), `msg="echomq: set consumer: stopped" set=`)
	require.Contains(t, out.String(), "reason=\"context ended\"")
}

// TestSetConsumerStopsOnPermanentError: a stream key of the wrong type is
// a permanent error: Run returns it, and the stop is logged as such.
func TestSetConsumerStopsOnPermanentError(t *testing.T) {
	t.Parallel()
	out := &syncBuffer{}
	c := faultClient(t, echomqtest.Shared(t).URL(), echomq.Config{Logger: slog.New(slog.NewTextHandler(out, nil))})
	q := echomqtest.Queue(t)
	_, err := c.Do(context.Background(), "SET", "emq:{"+q+"}:stream:plain", "v")
	require.NoError(t, err)
	sc, err := c.SetConsumer(echomq.SetConsumerConfig{Set: c.Streams(q, "plain", "other"), Group: "g", Start: echomq.StartHead,
		Handle: func(context.Context, echomq.Delivery) error { return nil }})
	require.NoError(t, err)
	err = sc.Run(context.Background())
	require.ErrorIs(t, err, echomq.ErrWrongType)
	require.NotErrorIs(t, err, echomq.ErrUnavailable)
	require.Contains(t, out.String(), "echomq: set consumer: stopped on a permanent error")
}
