package faultmatrix

import (
	"context"
	"errors"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/projection"
	"github.com/echomq/echomq/retention"
)

// TestVerbsDuringOutage calls the I/O verbs of every component package
// with context.Background() against a hung engine: each returns within
// the documented call bound (CallTimeout, 5s, plus the slack a loaded
// machine needs) with an error matching ErrUnavailable, never a permanent
// one, and each works on the same client once the engine is back.
func TestVerbsDuringOutage(t *testing.T) {
	t.Parallel()
	c := newCell(t, component{name: "verbs"})
	cl := c.client(echomq.Config{})
	s := cl.Stream(c.queue, "ev")
	bg := context.Background()
	_, err := s.Append(bg, echomq.Fields{"n", "0"}, nil)
	require.NoError(t, err)
	q, err := lanes.New(cl, c.queue, nil)
	require.NoError(t, err)
	_, err = q.Enqueue(bg, "a", []byte("x"), nil)
	require.NoError(t, err)
	store, err := fsstore.New(t.TempDir())
	require.NoError(t, err)
	policy := archive.Policy{Queue: c.queue, Stream: "ev", Keep: retention.MaxLen(1)}
	arch, err := archive.New(cl, store, &archive.Config{Policies: []archive.Policy{policy}, Logger: quiet()})
	require.NoError(t, err)
	live, err := projection.NewLive(seenProjection(nil), &projection.LiveConfig{
		Store: projection.EngineStore(cl, c.queue, "seen"), Logger: quiet(),
	}, s)
	require.NoError(t, err)
	_, err = live.CatchUp(bg)
	require.NoError(t, err)
	cached, err := projection.NewCached(projection.All, seenProjection(nil), s)
	require.NoError(t, err)
	// Retention on a stream of its own: the archiver's takes it under
	// archive control once a cycle ran.
	_, err = cl.Stream(c.queue, "rv").Append(bg, echomq.Fields{"n", "0"}, nil)
	require.NoError(t, err)
	rpolicy := retention.Policy{Queue: c.queue, Stream: "rv", Rule: retention.MaxLen(1000)}
	driver, err := retention.New(cl, &retention.Config{Policies: []retention.Policy{rpolicy}, Logger: quiet()})
	require.NoError(t, err)
	// The typed view and the stream-set verbs wrap the stream verbs: they
	// must keep the same bound and the same transient error.
	typed := echomq.NewTyped(cl.Stream(c.queue, "tv"), echomq.JSONFields[typedItem](), nil)
	_, err = typed.Append(bg, typedItem{N: "0"}, nil)
	require.NoError(t, err)
	_, err = s.Group("gr").Create(bg, echomq.StartHead)
	require.NoError(t, err)
	set := cl.StreamsPrefix(c.queue, "")
	follower, err := cl.Streams(c.queue, "ev", "tv").Follower(&echomq.SetFollowOpts{Start: echomq.StartHead, Logger: quiet()})
	require.NoError(t, err)
	fresh := func() *projection.Live[map[string]int] {
		l, err := projection.NewLive(seenProjection(nil), &projection.LiveConfig{
			Store: projection.EngineStore(cl, c.queue, "seen"), Logger: quiet(),
		}, s)
		require.NoError(t, err)
		return l
	}

	verbs := []struct {
		name string
		call func() error
	}{
		{"Stream.Read", func() error { _, err := s.Read(bg, echomq.All, nil); return err }},
		{"Stream.Append", func() error { _, err := s.Append(bg, echomq.Fields{"n", "x"}, nil); return err }},
		{"Stream.Info", func() error { _, err := s.Info(bg); return err }},
		{"Group.Create", func() error { _, err := s.Group("g").Create(bg, echomq.StartHead); return err }},
		{"lanes Enqueue", func() error { _, err := q.Enqueue(bg, "b", []byte("y"), nil); return err }},
		{"lanes Claim", func() error { _, err := q.Claim(bg, 1, time.Minute); return err }},
		{"lanes Stats", func() error { _, err := q.Stats(bg); return err }},
		{"lanes Sweep", func() error { _, err := q.Sweep(bg); return err }},
		{"Live.CatchUp", func() error { _, err := live.CatchUp(bg); return err }},
		{"Live.Save", func() error { return live.Save(bg) }},
		{"Live.Open", func() error { _, err := fresh().Open(bg); return err }},
		{"Cached.Get", func() error { _, err := cached.Get(bg); return err }},
		{"projection.Fold", func() error {
			_, err := projection.Fold(bg, projection.All, seenProjection(nil), s)
			return err
		}},
		{"archive Cycle", func() error { _, err := arch.Cycle(bg, policy); return err }},
		{"archive Reader.Read", func() error {
			_, err := arch.Reader(c.queue, "ev").Read(bg, echomq.All, nil)
			return err
		}},
		{"retention Apply", func() error { _, err := retention.Apply(bg, cl, rpolicy, time.Now()); return err }},
		{"retention Sweep", func() error { _, err := driver.Sweep(bg); return err }},
		{"Typed.Append", func() error { _, err := typed.Append(bg, typedItem{N: "x"}, nil); return err }},
		{"Typed.Read", func() error { _, err := typed.Read(bg, echomq.All, nil); return err }},
		{"Typed.Scan", func() error { return firstErr(typed.Scan(bg, echomq.All, nil)) }},
		{"Typed.Follow", func() error {
			return firstErr(typed.Follow(bg, &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{}), Logger: quiet()}))
		}},
		{"Replay", func() error {
			_, err := echomq.Replay(bg, s, echomq.All, &echomq.ReplayOpts{Handle: func(context.Context, echomq.Event) error { return nil }})
			return err
		}},
		{"Group.Reset", func() error {
			_, err := s.Group("gr").Reset(bg, &echomq.ResetOpts{Ago: time.Hour, DryRun: true})
			return err
		}},
		{"StreamSet.Names", func() error { _, err := set.Names(bg); return err }},
		{"SetFollower.Follow", func() error { return firstErr(follower.Follow(bg)) }},
	}

	require.NoError(t, c.srv.Pause())
	bound := 2*callTimeout + 5*time.Second
	var wg sync.WaitGroup
	for _, v := range verbs {
		wg.Go(func() {
			start := time.Now()
			err := v.call()
			took := time.Since(start)
			switch {
			case err == nil:
				t.Errorf("%s: succeeded against a hung engine", v.name)
			case !errors.Is(err, echomq.ErrUnavailable):
				t.Errorf("%s: %v does not match ErrUnavailable", v.name, err)
			case took > bound:
				t.Errorf("%s: returned after %v, above %v", v.name, took, bound)
			default:
				t.Logf("%s: %v after %v", v.name, err, took.Round(time.Millisecond))
			}
		})
	}
	wg.Wait()
	require.NoError(t, c.srv.Resume())

	// The same client, the same handles: every verb works again. (The
	// lanes Claim may find the job enqueued above; Create may find the
	// group made by the paused call, which the engine ran on resume.)
	for _, v := range verbs {
		err := v.call()
		if v.name == "Group.Create" && errors.Is(err, echomq.ErrGroupExists) {
			err = nil
		}
		require.NoError(t, err, "%s after the engine came back", v.name)
	}
}

// typedItem is the value of the typed verbs' stream.
type typedItem struct {
	N string `json:"n"`
}

// firstErr returns the error of seq's first yield: nil for an event. Against
// a hung engine that is the outage's (a follower yields it once, then would
// retry); once the engine is back, the first stored event.
func firstErr[V any](seq iter.Seq2[V, error]) error {
	for _, err := range seq {
		return err
	}
	return nil
}
