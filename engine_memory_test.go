package echomq_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// TestMemoryTrialNoEviction is the memory trial on a real engine with
// maxmemory 8mb and noeviction: appends of 1 KB records run until the
// typed ErrEngineFull, while a consumer and an archiver run throughout;
// the headroom the watcher reads falls before the error; the archive's
// cycle trims and appends succeed again; no acknowledged event is lost
// (each receipt is in the live stream or the archive).
func TestMemoryTrialNoEviction(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t, "--maxmemory", "8mb", "--maxmemory-policy", "noeviction")
	trims := &archiveTrims{}
	c := connect(t, echomq.Config{URL: srv.URL(), EngineCheckInterval: 20 * time.Millisecond, Hooks: []echomq.Hook{trims}})
	q := echomqtest.Queue(t)
	s := c.Stream(q, "s")

	var mu sync.Mutex
	handled := map[echomq.ID]bool{}
	cons, err := c.Consumer(&echomq.ConsumerConfig{
		Queue: q, Stream: "s", Group: "g", Name: "c1", Start: echomq.StartHead,
		Beat: 100 * time.Millisecond, Handle: func(_ context.Context, d echomq.Delivery) error {
			mu.Lock()
			handled[d.ID] = true
			mu.Unlock()
			return nil
		},
	})
	require.NoError(t, err)
	require.NoError(t, cons.Start(ctx))
	t.Cleanup(func() { require.NoError(t, cons.Stop(context.Background())) })

	store, err := fsstore.New(t.TempDir())
	require.NoError(t, err)
	// Entries older than 3s are archived and trimmed: the burst below
	// fills the engine well within that, the archiver then frees it.
	policy := archive.Policy{Queue: q, Stream: "s", Keep: retention.Ago(3 * time.Second)}
	arch, err := archive.New(c, store, &archive.Config{Policies: []archive.Policy{policy}, Tick: 200 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, arch.Start(ctx))
	t.Cleanup(func() { require.NoError(t, arch.Stop(context.Background())) })

	h0, ok := c.Engine().Headroom()
	require.True(t, ok)
	payload := strings.Repeat("x", 1024)
	batch := make([]echomq.Fields, 50)
	for i := range batch {
		batch[i] = echomq.F("p", payload)
	}
	var receipts []echomq.ID
	minHeadroom := h0
	var fullErr error
	halfway := false
	deadline := time.Now().Add(60 * time.Second)
	for fullErr == nil {
		require.True(t, time.Now().Before(deadline), "the engine never filled")
		ids, err := s.AppendBatch(ctx, batch, nil)
		for _, id := range ids {
			if !id.IsZero() {
				receipts = append(receipts, id)
			}
		}
		if h, _ := c.Engine().Headroom(); h < minHeadroom {
			minHeadroom = h
		}
		if len(receipts) >= 3000 && !halfway {
			// Halfway (3 MB in): the watcher's reading shows the fall
			// before any error.
			halfway = true
			require.Eventually(t, func() bool {
				h, _ := c.Engine().Headroom()
				minHeadroom = min(minHeadroom, h)
				return h < h0-2<<20
			}, 30*time.Second, 10*time.Millisecond, "the headroom falls as the engine fills")
		}
		if err != nil {
			require.ErrorIs(t, err, echomq.ErrEngineFull, "the only failure is the typed one")
			require.NotErrorIs(t, err, echomq.ErrUnavailable)
			fullErr = err
		}
	}
	var full *echomq.EngineFullError
	require.ErrorAs(t, fullErr, &full)
	require.Contains(t, fullErr.Error(), "archiving, trimming or acknowledging frees memory")
	require.Less(t, minHeadroom, h0-2<<20, "the headroom read by the watcher fell before the error")
	require.True(t, halfway)
	t.Logf("%d receipts before the engine was full; headroom %d -> %d; archive trims so far %d", len(receipts), h0, minHeadroom, trims.removed.Load())

	// The archive's cycle trims; appends succeed again: a megabyte more,
	// which acknowledgements alone could not make room for.
	require.Eventually(t, func() bool { return trims.removed.Load() > 1000 }, 60*time.Second, 20*time.Millisecond,
		"the archiver trims the full engine")
	more := 0
	require.Eventually(t, func() bool {
		for more < 1000 {
			ids, err := s.AppendBatch(ctx, batch, nil)
			for _, id := range ids {
				if !id.IsZero() {
					receipts = append(receipts, id)
					more++
				}
			}
			if err != nil {
				require.ErrorIs(t, err, echomq.ErrEngineFull)
				return false
			}
		}
		return true
	}, 60*time.Second, 100*time.Millisecond, "appends succeed after the archive trims")
	after, err := s.Append(ctx, echomq.F("p", "after"), nil)
	require.NoError(t, err)
	receipts = append(receipts, after)

	// The consumer kept going: it handles what was appended after.
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return handled[after] }, 60*time.Second, 20*time.Millisecond)
	select {
	case <-arch.Stopped():
		t.Fatal("the archiver stopped")
	case <-cons.Stopped():
		t.Fatal("the consumer stopped")
	default:
	}

	// No acknowledged event is lost: each receipt is live or archived.
	seen := map[echomq.ID]bool{}
	for ev, err := range arch.Reader(q, "s").Scan(ctx, echomq.All, nil) {
		require.NoError(t, err)
		seen[ev.ID] = true
	}
	lost := 0
	for _, id := range receipts {
		if !seen[id] {
			lost++
		}
	}
	require.Zero(t, lost, "acknowledged events lost, of "+strconv.Itoa(len(receipts)))
}

// archiveTrims counts the entries the archiver's trims removed.
type archiveTrims struct{ removed atomic.Int64 }

func (a *archiveTrims) OnTrim(_ context.Context, t echomq.TrimInfo) {
	if t.By == echomq.TrimByArchive && t.Err == nil {
		a.removed.Add(t.Removed)
	}
}

// TestFullEngineVerbs: on a full engine the verbs that free memory run
// (read, acknowledge, claim, trim, the archive watermark, a consumer
// restarting on its existing group) and the ones that add memory are
// refused with ErrEngineFull, never ErrUnavailable.
func TestFullEngineVerbs(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t, "--maxmemory", "64mb", "--maxmemory-policy", "noeviction")
	c := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(1)})
	q := echomqtest.Queue(t)
	s := c.Stream(q, "s")
	recs := make([]echomq.Fields, 200)
	for i := range recs {
		recs[i] = echomq.F("p", strings.Repeat("y", 512))
	}
	ids, err := s.AppendBatch(ctx, recs, nil)
	require.NoError(t, err)
	g := s.Group("g")
	_, err = g.Create(ctx, echomq.StartHead)
	require.NoError(t, err)
	// Full: maxmemory below what is used.
	_, err = rawcmd.Do(ctx, c, "CONFIG", "SET", "maxmemory", "1mb")
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = rawcmd.Do(context.Background(), c, "CONFIG", "SET", "maxmemory", "64mb") })

	_, err = s.Append(ctx, echomq.F("k", "v"), nil)
	require.ErrorIs(t, err, echomq.ErrEngineFull)
	require.NotErrorIs(t, err, echomq.ErrUnavailable)
	_, err = s.Append(ctx, echomq.F("k", "v"), &echomq.AppendOpts{Key: "once"})
	require.ErrorIs(t, err, echomq.ErrEngineFull)
	_, err = s.Group("other").Create(ctx, echomq.StartHead)
	require.ErrorIs(t, err, echomq.ErrEngineFull)

	// A consumer (re)starting on the existing group reads and acknowledges.
	got := make(chan echomq.ID, len(ids))
	cons, err := c.Consumer(&echomq.ConsumerConfig{
		Queue: q, Stream: "s", Group: "g", Name: "c1", Start: echomq.StartHead,
		Beat: 100 * time.Millisecond, Handle: func(_ context.Context, d echomq.Delivery) error { got <- d.ID; return nil },
	})
	require.NoError(t, err)
	require.NoError(t, cons.Start(ctx))
	for range ids {
		select {
		case <-got:
		case <-time.After(30 * time.Second):
			t.Fatal("the consumer stalled on a full engine")
		}
	}
	require.NoError(t, cons.Stop(ctx))
	require.Eventually(t, func() bool {
		info, err := g.Info(ctx)
		return err == nil && info.Pending == 0
	}, 30*time.Second, 20*time.Millisecond, "every delivery acknowledged")

	// The archive's watermark cache and trim run.
	require.NoError(t, archive.SetWatermark(ctx, s, ids[99]))
	_, err = archive.ClearWatermark(ctx, s)
	require.NoError(t, err)
	r, err := s.Trim(ctx, echomq.MaxLen(10).Exact())
	require.NoError(t, err)
	require.Equal(t, int64(len(ids)-10), r.Removed)
}
