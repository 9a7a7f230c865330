package faultmatrix

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/projection"
	"github.com/echomq/echomq/retention"
)

// component is one row of the matrix: how to run it in a cell, how to tell
// it caught up, and how to count what it lost and repeated.
type component struct {
	name string
	// exactlyOnce: a repeat is a failure (at-least-once components have
	// their repeats counted, not refused).
	exactlyOnce bool
	// logs: the component logs its outages (calls that only return errors,
	// like a read, have nothing to log).
	logs bool
	// start runs the component until ctx ends; stop stops it and waits.
	start func(c *cell, ctx context.Context) (stop func())
	// produce feeds the cell; nil means items appended to stream "ev".
	produce func(c *cell, ctx context.Context)
	// caughtUp reports that the component handled what was acknowledged
	// (polled once the producer stopped); nil means seen ⊇ acked.
	caughtUp func(c *cell) bool
	// final counts lost and repeated items once the component stopped;
	// nil means acked \ seen and seen's repeats.
	final func(c *cell) (lost, dups int)
}

// stopGrace bounds a component's stop in a cell.
const stopGrace = 30 * time.Second

func stopCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), stopGrace)
}

var components = []component{
	{name: "Consumer", logs: true, start: startConsumer},
	{name: "lanes.Worker", logs: true, start: startWorker, produce: produceJobs},
	{name: "Follow", logs: true, exactlyOnce: true, start: startFollow},
	{name: "SetConsumer", logs: true, start: startSetConsumer, produce: produceSet},
	{name: "SetFollower", logs: true, exactlyOnce: true, start: startSetFollower, produce: produceSet},
	{name: "projection.Live", logs: true, exactlyOnce: true, start: startLive, final: finalLive},
	{name: "projection.Cached", exactlyOnce: true, start: startCached},
	{name: "archive.Archiver", logs: true, exactlyOnce: true, start: startArchiver, caughtUp: sweptClean, final: finalArchive},
	{name: "retention.Driver", logs: true, exactlyOnce: true, start: startRetention, caughtUp: sweptClean, final: finalRetention},
	{
		name: "node lease", logs: true, exactlyOnce: true, start: func(*cell, context.Context) func() { return func() {} },
		produce: produceLeased, caughtUp: func(*cell) bool { return true }, final: finalLeased,
	},
	{name: "Stream.Read", exactlyOnce: true, start: startReads, final: finalReads},
}

func startConsumer(c *cell, ctx context.Context) func() {
	cl := c.client(echomq.Config{})
	cons, err := cl.Consumer(&echomq.ConsumerConfig{
		Queue: c.queue, Stream: "ev", Group: "g", Start: echomq.StartHead, Beat: 500 * time.Millisecond,
		Logger: c.logger(),
		Handle: func(_ context.Context, d echomq.Delivery) error { c.handled(d.Fields[1]); return nil },
	})
	require.NoError(c.t, err)
	require.NoError(c.t, cons.Start(ctx))
	c.watchExit(cons.Stopped())
	return func() {
		sctx, cancel := stopCtx()
		defer cancel()
		require.NoError(c.t, cons.Stop(sctx))
		st := cons.Stats()
		c.note = "acked " + strconv.FormatInt(st.Acked, 10) + ", reclaimed " + strconv.FormatInt(st.Reclaimed, 10)
	}
}

func startWorker(c *cell, ctx context.Context) func() {
	q, err := lanes.New(c.client(echomq.Config{}), c.queue, nil)
	require.NoError(c.t, err)
	w, err := lanes.NewWorker(q, lanes.HandlerFunc(func(_ context.Context, j *lanes.Job) error {
		c.handled(string(j.Payload))
		return nil
	}), &lanes.WorkerConfig{Concurrency: 4, Logger: c.logger()})
	require.NoError(c.t, err)
	require.NoError(c.t, w.Start(ctx))
	c.watchExit(w.Stopped())
	return func() {
		sctx, cancel := stopCtx()
		defer cancel()
		require.NoError(c.t, w.Stop(sctx))
		st := w.Stats()
		c.note = "completed " + strconv.FormatInt(st.Completed, 10) + ", lost leases " + strconv.FormatInt(st.Lost, 10)
	}
}

// produceJobs enqueues one job per item on four lanes, each retried under
// its own JOB id until admitted (a duplicate refusal means an earlier
// attempt was).
func produceJobs(c *cell, ctx context.Context) {
	q, err := lanes.New(c.direct, c.queue, nil)
	require.NoError(c.t, err)
	ids := map[string]echomq.ID{}
	c.produceWith(ctx, func(ctx context.Context, n string) error {
		id, ok := ids[n]
		if !ok {
			var err error
			if id, err = c.direct.MintID(ctx, c.queue, "JOB"); err != nil {
				return err
			}
			ids[n] = id
		}
		i, _ := strconv.Atoi(n)
		_, err := q.Enqueue(ctx, "l"+strconv.Itoa(i%4), []byte(n), &lanes.EnqueueOpts{ID: id})
		if _, ok := errors.AsType[*lanes.DuplicateError](err); ok {
			return nil
		}
		return err
	})
}

func startFollow(c *cell, ctx context.Context) func() {
	s := c.client(echomq.Config{}).Stream(c.queue, "ev")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range s.Follow(ctx, &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{}), Block: time.Second}) {
			if err != nil {
				c.call(0, err)
				if !errors.Is(err, echomq.ErrUnavailable) {
					break
				}
				continue
			}
			c.handled(ev.Fields[1])
		}
		if ctx.Err() == nil {
			c.exits.Add(1) // the iteration ended on its own
		}
	}()
	return func() { echomqtest.Recv(c.t, done, time.Minute, "the component to stop") } // ctx ended before stop is called
}

// seenProjection folds the items of a stream into how often each was
// folded, reporting each fold to the cell.
func seenProjection(c *cell) projection.Projection[map[string]int] {
	return projection.Projection[map[string]int]{
		Name: "seen", Version: 1,
		Init: func() map[string]int { return map[string]int{} },
		Apply: func(s map[string]int, ev projection.Event) map[string]int {
			if c != nil {
				c.handled(ev.Fields[1])
			}
			s[ev.Fields[1]]++
			return s
		},
	}
}

func startLive(c *cell, ctx context.Context) func() {
	cl := c.client(echomq.Config{})
	l, err := projection.NewLive(seenProjection(c), &projection.LiveConfig{
		Store: projection.EngineStore(cl, c.queue, "seen"), SnapshotEvery: 20, SnapshotInterval: 200 * time.Millisecond,
		Logger: c.logger(),
	}, cl.Stream(c.queue, "ev"))
	require.NoError(c.t, err)
	require.NoError(c.t, l.Start(ctx))
	c.watchExit(l.Stopped())
	return func() {
		sctx, cancel := stopCtx()
		defer cancel()
		require.NoError(c.t, l.Stop(sctx))
	}
}

// finalLive counts what the run lost and repeated, then what a restart
// from the last snapshot would: a fresh Live resumed from it must hold
// every item once (the run never lost its place, and saved it).
func finalLive(c *cell) (lost, dups int) {
	want := c.acked.names()
	lost, dups = c.seen.missing(want), c.seen.repeats()
	l, err := projection.NewLive(seenProjection(nil), &projection.LiveConfig{
		Store: projection.EngineStore(c.direct, c.queue, "seen"), Logger: quiet(),
	}, c.direct.Stream(c.queue, "ev"))
	require.NoError(c.t, err)
	start, err := l.Open(context.Background())
	require.NoError(c.t, err)
	require.Equal(c.t, projection.StartResumed, start)
	state, _, err := l.State(context.Background())
	require.NoError(c.t, err)
	var snap items
	for n, k := range state {
		for range k {
			snap.add(n)
		}
	}
	c.note = "snapshot holds " + strconv.Itoa(len(state)) + " items"
	return max(lost, snap.missing(want)), max(dups, snap.repeats())
}

func startCached(c *cell, ctx context.Context) func() {
	cl := c.client(echomq.Config{})
	cache, err := projection.NewCached(projection.All, seenProjection(nil), cl.Stream(c.queue, "ev"))
	require.NoError(c.t, err)
	done := make(chan struct{})
	var last map[string]int
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			start := time.Now()
			st, err := cache.Get(context.Background())
			c.call(time.Since(start), err)
			if err == nil {
				last = st
				for n := range st {
					if _, ok := c.seen.at(n); !ok {
						c.handled(n)
					}
				}
			}
			sleep(ctx, 100*time.Millisecond)
		}
	}()
	return func() {
		echomqtest.Recv(c.t, done, time.Minute, "the fold to stop")
		for n, k := range last {
			for range k - 1 {
				c.seen.add(n) // a fold that counted an item twice
			}
		}
	}
}

func startReads(c *cell, ctx context.Context) func() {
	s := c.client(echomq.Config{}).Stream(c.queue, "ev")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			start := time.Now()
			evs, err := s.Read(context.Background(), echomq.All, nil)
			c.call(time.Since(start), err)
			if err == nil {
				for _, ev := range evs {
					if _, ok := c.seen.at(ev.Fields[1]); !ok {
						c.handled(ev.Fields[1])
					}
				}
			}
			sleep(ctx, 100*time.Millisecond)
		}
	}()
	c.reader = s
	return func() { echomqtest.Recv(c.t, done, time.Minute, "the reader to stop") }
}

// finalReads: the same client, not rebuilt, reads everything acknowledged,
// once.
func finalReads(c *cell) (lost, dups int) {
	evs, err := c.reader.Read(context.Background(), echomq.All, nil)
	require.NoError(c.t, err)
	var got items
	for _, ev := range evs {
		got.add(ev.Fields[1])
	}
	return got.missing(c.acked.names()), got.repeats()
}

// sweptClean reports a sweep without failure after the producer stopped.
func sweptClean(c *cell) bool {
	return c.lastClean.Load() > c.producedUntil.Load()
}

// sweptNow records one sweep of a sweeping component.
func (c *cell) sweptNow(failed int) {
	if failed == 0 {
		c.lastClean.Store(time.Now().UnixNano())
		c.ok()
	}
}

func startArchiver(c *cell, ctx context.Context) func() {
	store, err := fsstore.New(c.t.TempDir())
	require.NoError(c.t, err)
	c.store = store
	a, err := archive.New(c.client(echomq.Config{}), store, &archive.Config{
		Policies: []archive.Policy{{Queue: c.queue, Stream: "ev", Keep: retention.MaxLen(5)}},
		Tick:     200 * time.Millisecond, Logger: c.logger(),
		OnSweep: func(r archive.SweepResult) { c.sweptNow(r.Failed) },
	})
	require.NoError(c.t, err)
	require.NoError(c.t, a.Start(ctx))
	c.watchExit(a.Stopped())
	return func() {
		sctx, cancel := stopCtx()
		defer cancel()
		require.NoError(c.t, a.Stop(sctx))
	}
}

// finalArchive reads the stream merged with its archive: every
// acknowledged item once, whatever the fault cut in the middle of a cycle.
func finalArchive(c *cell) (lost, dups int) {
	rd := archive.NewReader(c.store, c.direct.Stream(c.queue, "ev"))
	evs, err := rd.Read(context.Background(), echomq.All, nil)
	require.NoError(c.t, err)
	var got items
	archived := 0
	for _, ev := range evs {
		got.add(ev.Fields[1])
		if ev.Archived {
			archived++
		}
	}
	c.note = strconv.Itoa(archived) + " of " + strconv.Itoa(len(evs)) + " archived"
	return got.missing(c.acked.names()), got.repeats()
}

func startRetention(c *cell, ctx context.Context) func() {
	d, err := retention.New(c.client(echomq.Config{}), &retention.Config{
		Policies: []retention.Policy{{Queue: c.queue, Stream: "ev", Rule: retention.MaxLen(keepLen).Exact()}},
		Tick:     200 * time.Millisecond, Logger: c.logger(),
		OnSweep: func(r retention.SweepResult) { c.sweptNow(r.Failed) },
	})
	require.NoError(c.t, err)
	require.NoError(c.t, d.Start(ctx))
	c.watchExit(d.Stopped())
	return func() {
		sctx, cancel := stopCtx()
		defer cancel()
		require.NoError(c.t, d.Stop(sctx))
	}
}

// keepLen is the retention rule's length.
const keepLen = 20

// finalRetention checks that the trims removed only what the rule allows:
// the stream holds the newest items without a gap, at least keepLen of
// them. lost counts the items missing from that suffix.
func finalRetention(c *cell) (lost, dups int) {
	evs, err := c.direct.Stream(c.queue, "ev").Read(context.Background(), echomq.All, nil)
	require.NoError(c.t, err)
	acked := c.acked.names()
	sort.Slice(acked, func(i, j int) bool { return atoi(acked[i]) < atoi(acked[j]) })
	var got items
	for _, ev := range evs {
		got.add(ev.Fields[1])
	}
	keep := max(len(evs), min(keepLen, len(acked)))
	lost = got.missing(acked[len(acked)-min(keep, len(acked)):])
	c.note = "stream holds " + strconv.Itoa(len(evs)) + " (rule: " + strconv.Itoa(keepLen) + ")"
	return lost, got.repeats()
}

// produceLeased appends through the component's own client, whose node id
// is leased (TTL 3s, so the longer faults let it lapse): every receipt id
// must be unique, and minting must resume by itself.
func produceLeased(c *cell, ctx context.Context) {
	cl := c.client(echomq.Config{NodeLeaseTTL: 3 * time.Second})
	s := cl.Stream(c.queue, "ev")
	nodes := map[int]bool{}
	c.produceWith(ctx, func(ctx context.Context, n string) error {
		id, err := s.Append(ctx, echomq.Fields{"n", n}, &echomq.AppendOpts{Key: "p-" + n})
		if err == nil {
			c.seen.add(id.String())
			nodes[id.Snowflake().Node()] = true
			c.ok()
		}
		return err
	})
	c.note = strconv.Itoa(len(nodes)) + " node id(s) used"
}

// finalLeased: every acknowledged append is in the stream, once, and no
// receipt id was handed out twice.
func finalLeased(c *cell) (lost, dups int) {
	evs, err := c.direct.Stream(c.queue, "ev").Read(context.Background(), echomq.All, nil)
	require.NoError(c.t, err)
	var got items
	for _, ev := range evs {
		got.add(ev.Fields[1])
	}
	return got.missing(c.acked.names()), got.repeats() + c.seen.repeats()
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
