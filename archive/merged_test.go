package archive_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/projection"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/retention"
)

// seamFixture is a stream of 90 events minted three per second (two of
// them in one millisecond) from t0 on, whose first 60 seconds' worth (the
// events older than 30s at the archiver's "now") are archived.
type seamFixture struct {
	t0   time.Time
	rd   *archive.Reader
	a    *archive.Archiver
	s    *echomq.Stream
	all  []echomq.Event
	name string
	q    string
}

func newSeamFixture(t *testing.T, kind string) *seamFixture {
	t.Helper()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	f := &seamFixture{t0: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), q: q, name: "room-opened"}
	f.s = c.Stream(q, f.name)
	clk := newFixedClock(f.t0)
	m, err := echomq.NewMinter(5, clk.Now)
	require.NoError(t, err)
	for i := range 30 {
		at := f.t0.Add(time.Duration(i) * time.Second)
		appendAt(t, f.s, clk, m, at, 3*i)
		appendAt(t, f.s, clk, m, at, 3*i+1) // same millisecond
		appendAt(t, f.s, clk, m, at.Add(500*time.Millisecond), 3*i+2)
	}
	f.all, err = f.s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, f.all, 90)
	now := newFixedClock(f.t0.Add(50 * time.Second))
	f.a = newArchiver(t, c, newStore(t, kind), &archive.Config{Clock: now.Now, SegmentEntries: 13})
	res, err := f.a.Cycle(ctx, archive.Policy{Queue: q, Stream: f.name, Keep: retention.Ago(30 * time.Second)})
	require.NoError(t, err)
	require.Equal(t, int64(60), res.Folded, "the events minted before now-30s = t0+20s")
	require.Len(t, res.Segments, 5)
	f.rd = f.a.Reader(q, f.name)
	return f
}

// TestWindowsAcrossSeam: windows that straddle the seam, lie wholly in the
// archive or wholly live return exactly the events a full merged read
// filtered by mint instant returns.
func TestWindowsAcrossSeam(t *testing.T) {
	t.Parallel()
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newSeamFixture(t, kind)
			full, err := f.rd.Read(ctx, echomq.All, nil)
			require.NoError(t, err)
			require.Len(t, full, 90)
			for i, ev := range full {
				require.Equal(t, f.all[i], ev.Event)
				require.Equal(t, i < 60, ev.Archived)
			}
			sec := func(s float64) time.Time { return f.t0.Add(time.Duration(s * float64(time.Second))) }
			for _, w := range []struct {
				name   string
				t0, t1 time.Time
			}{
				{"archive only", sec(3), sec(11.5)},
				{"straddling", sec(14.5), sec(25)},
				{"live only", sec(21), sec(29.5)},
				{"one millisecond", sec(7), sec(7)},
				{"seam edge", sec(19.5), sec(20)},
				{"everything", sec(-1), sec(40)},
				{"nothing", sec(40), sec(50)},
			} {
				var want []echomq.Event
				lo := w.t0.Truncate(time.Millisecond)
				for _, ev := range full {
					if !ev.Time().Before(lo) && !ev.Time().After(w.t1) {
						want = append(want, ev.Event)
					}
				}
				got, err := f.rd.Read(ctx, echomq.Window(w.t0, w.t1), nil)
				require.NoError(t, err, w.name)
				require.Equal(t, want, events(got), w.name)
				// Paging, forwards and backwards, sees the same.
				var paged []echomq.Event
				for ev, err := range f.rd.Scan(ctx, echomq.Window(w.t0, w.t1), &echomq.ScanOpts{PageSize: 2}) {
					require.NoError(t, err)
					paged = append(paged, ev)
				}
				require.Equal(t, want, paged, w.name+" paged")
				rev, err := f.rd.Read(ctx, echomq.Window(w.t0, w.t1), &echomq.ReadOpts{Reverse: true})
				require.NoError(t, err)
				require.Equal(t, reversed(want), events(rev), w.name+" reversed")
			}
			since, err := f.rd.Read(ctx, echomq.Since(sec(18)), &echomq.ReadOpts{Count: 5})
			require.NoError(t, err)
			require.Equal(t, events(full[54:59]), events(since))
			latest, err := f.rd.Read(ctx, echomq.All, &echomq.ReadOpts{Count: 32, Reverse: true})
			require.NoError(t, err)
			require.Equal(t, reversed(events(full[58:])), events(latest), "newest first across the seam")
		})
	}
}

func events(evs []archive.Event) []echomq.Event {
	var out []echomq.Event
	for _, ev := range evs {
		out = append(out, ev.Event)
	}
	return out
}

func reversed(evs []echomq.Event) []echomq.Event {
	if len(evs) == 0 {
		return nil
	}
	out := make([]echomq.Event, len(evs))
	for i, ev := range evs {
		out[len(evs)-1-i] = ev
	}
	return out
}

// countingStore counts Gets, to show reads touch only the segments they
// need.
type countingStore struct {
	archive.Store
	gets map[string]int
}

func (c *countingStore) Get(ctx context.Context, name string) ([]byte, error) {
	c.gets[name]++
	return c.Store.Get(ctx, name)
}

// TestReadTouchesOnlyOverlappingSegments: a window inside one segment
// fetches that segment and no other.
func TestReadTouchesOnlyOverlappingSegments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSeamFixture(t, "fs")
	m, err := archive.LoadManifest(ctx, f.a.Store(), f.q, f.name)
	require.NoError(t, err)
	cs := &countingStore{Store: f.a.Store(), gets: map[string]int{}}
	rd := archive.NewReader(cs, f.s)
	seg := m.Segments[2]
	within, err := rd.Read(ctx, echomq.Span(echomq.After(seg.First), echomq.At(seg.Last)), nil)
	require.NoError(t, err)
	require.Len(t, within, int(seg.Count-1))
	var segGets int
	for name, n := range cs.gets {
		if name != seg.Name && len(name) > 8 && name[len(name)-8:] == ".parquet" {
			t.Fatalf("read of a window inside %s fetched %s", seg.Name, name)
		}
		if name == seg.Name {
			segGets += n
		}
	}
	require.Equal(t, 1, segGets)
	// A live-only window fetches no segment at all.
	clear(cs.gets)
	_, err = rd.Read(ctx, echomq.Since(f.t0.Add(25*time.Second)), nil)
	require.NoError(t, err)
	for name := range cs.gets {
		require.NotContains(t, name, ".parquet")
	}
}

// TestMergedReadWhileArchiving: a merged scan that pages slowly while an
// archiver folds and trims under it still returns every event exactly
// once, in order (the live page check of the seam).
func TestMergedReadWhileArchiving(t *testing.T) {
	t.Parallel()
	for _, rev := range []bool{false, true} {
		t.Run(map[bool]string{false: "forward", true: "reverse"}[rev], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := newClient(t)
			q := echomqtest.Queue(t)
			s := c.Stream(q, "busy")
			appendN(t, s, 0, 60)
			want, err := s.Read(ctx, echomq.All, &echomq.ReadOpts{Reverse: rev})
			require.NoError(t, err)
			a := newArchiver(t, c, newStore(t, "fs"), &archive.Config{SegmentEntries: 4})
			rd := a.Reader(q, "busy")
			var got []echomq.Event
			keepN := int64(60)
			for ev, err := range rd.Scan(ctx, echomq.All, &echomq.ScanOpts{PageSize: 3, Reverse: rev}) {
				require.NoError(t, err)
				got = append(got, ev)
				if len(got)%4 == 0 && keepN > 0 {
					keepN -= 7 // each cycle folds and trims 7 more
					_, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: "busy", Keep: keep(max(keepN, 0))})
					require.NoError(t, err)
				}
			}
			require.Equal(t, want, got)
		})
	}
}

// TestFollowAcrossSeam: following from the start replays the archive, then
// the live tail, then new events, while cycles archive behind the follower.
func TestFollowAcrossSeam(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c := newClient(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "tail")
	first := appendN(t, s, 0, 10)
	a := newArchiver(t, c, newStore(t, "fs"), nil)
	pol := archive.Policy{Queue: q, Stream: "tail", Keep: keep(4)}
	_, err := a.Cycle(ctx, pol)
	require.NoError(t, err)
	var got []echomq.ID
	want := append([]echomq.ID(nil), first...)
	for ev, err := range a.Reader(q, "tail").Follow(ctx, &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{}), Block: 100 * time.Millisecond, Count: 3}) {
		require.NoError(t, err)
		got = append(got, ev.ID)
		if len(got) == 10 || len(got) == 15 {
			// Append more and archive all but one behind the follower.
			want = append(want, appendN(t, s, len(got), 5)...)
			_, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: "tail", Keep: keep(1)})
			require.NoError(t, err)
		}
		if len(got) == 20 {
			break
		}
	}
	require.Equal(t, want, got)
}

// TestProjectionAcrossSeam: a projection folds the merged reader (as a
// projection.Source) across the seam unchanged.
func TestProjectionAcrossSeam(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSeamFixture(t, "fs")
	var _ projection.Source = f.rd
	sum := projection.Projection[int]{Apply: func(n int, ev projection.Event) int { return n + len(ev.Fields.Value("n")) }}
	got, err := projection.Fold(ctx, projection.All, sum, f.rd)
	require.NoError(t, err)
	want := 0
	for _, ev := range f.all {
		want += len(ev.Fields.Value("n"))
	}
	require.Equal(t, want, got)
	windowed, err := projection.Fold(ctx, projection.Between(f.t0.Add(15*time.Second), f.t0.Add(24500*time.Millisecond)), projection.Projection[int]{
		Apply: func(n int, _ projection.Event) int { return n + 1 },
	}, f.rd)
	require.NoError(t, err)
	require.Equal(t, 30, windowed, "ten seconds of three events, straddling the seam")
}

// TestFollowNewOnly: following without a start yields only events appended
// after Follow starts, even when the live stream was lost and only the
// archive is left.
func TestFollowNewOnly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c := newClient(t)
	q := echomqtest.Queue(t)
	s := c.Stream(q, "new-only")
	appendN(t, s, 0, 6)
	a := newArchiver(t, c, newStore(t, "fs"), nil)
	_, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: "new-only", Keep: keep(0)})
	require.NoError(t, err)
	_, err = rawcmd.Do(ctx, c, "DEL", s.Key())
	require.NoError(t, err)
	w, _, err := archive.Watermark(ctx, s)
	require.NoError(t, err)
	next, stop := iterPull(a.Reader(q, "new-only").Follow(ctx, &echomq.FollowOpts{Block: 20 * time.Millisecond}))
	defer stop()
	// Keep appending until the follower sees something: what it sees first
	// must be new, never the archive's history.
	done := make(chan struct{})
	appended := make(chan struct{})
	go func() {
		defer close(appended)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for i := 6; ; i++ {
			select {
			case <-done:
				return
			case <-tick.C:
				if _, err := s.Append(context.Background(), echomq.F("n", strconv.Itoa(i), "k", strconv.Itoa(i%3), "blob", "\x00\xffbinary"), nil); !assert.NoError(t, err) {
					return
				}
			}
		}
	}()
	ev, err, ok := next()
	close(done)
	echomqtest.Recv(t, appended, 30*time.Second, "the appender to stop")
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, 1, ev.ID.Compare(w), "the first event followed is above W")
}
