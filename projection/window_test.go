package projection

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// appendRandom appends events at random instants within span milliseconds
// of base (gaps up to span ms), several per millisecond, and returns them
// in order.
func appendRandom(t *testing.T, b *testBundle, s *echomq.Stream, rng *rand.Rand, n, span int) []echomq.Event {
	t.Helper()
	for ms := int64(0); n > 0; ms += int64(1 + rng.IntN(span)) {
		k := min(n, rng.IntN(5)) // 0..4 events in this millisecond
		tails := map[int]bool{}
		for len(tails) < k {
			tails[rng.IntN(4)<<12|rng.IntN(8)] = true
		}
		sorted := make([]int, 0, k)
		for tail := range tails {
			sorted = append(sorted, tail)
		}
		slices.Sort(sorted)
		for _, tail := range sorted {
			id := evtAt(t, base, ms, tail>>12, tail&0xFFF)
			f := echomq.F("room", "r"+strconv.Itoa(rng.IntN(3)), "points", strconv.Itoa(rng.IntN(600)))
			require.NoError(t, s.AppendID(b.ctx, id, f))
		}
		n -= k
	}
	return readAll(t, b.ctx, s)
}

// naive keeps the events whose entry satisfies in, the reference a fold
// must equal.
func naive(s string, evs []echomq.Event, in func(echomq.EntryID) bool) []Event {
	var out []Event
	for _, ev := range evs {
		if in(ev.Entry) {
			out = append(out, Event{Event: ev, Stream: s})
		}
	}
	return out
}

func msOf(t time.Time) uint64 { return uint64(t.UnixMilli()) }

// TestFoldWindowsProperty checks, on random data with several events per
// millisecond, that the fold of every window form equals the naive fold of
// a full read filtered by the window's definition.
func TestFoldWindowsProperty(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	for trial := range 4 {
		s := b.stream("w" + strconv.Itoa(trial))
		all := appendRandom(t, b, s, rng, 150+rng.IntN(150), 3)
		last := all[len(all)-1].Entry
		// instant returns a time inside a random millisecond near the data,
		// with a random sub-millisecond part, which a window must ignore.
		instant := func() time.Time {
			return base.Add(time.Duration(rng.IntN(int(last.Ms-msOf(base))+6)-3)*time.Millisecond + time.Duration(rng.IntN(1e6)))
		}
		// bound returns a bound at, between or around the stored entries:
		// inside a millisecond that holds several events.
		bound := func() (echomq.EntryID, bool) {
			e := all[rng.IntN(len(all))].Entry
			switch rng.IntN(4) {
			case 0:
				e.Seq++
			case 1:
				if e.Seq > 0 {
					e.Seq--
				}
			}
			return e, rng.IntN(2) == 0
		}
		for range 12 {
			t0, t1 := instant(), instant()
			if t1.Before(t0) {
				t0, t1 = t1, t0
			}
			d := time.Duration(1+rng.IntN(40)) * time.Millisecond
			now := instant()
			lo, loEx := bound()
			hi, hiEx := bound()
			if hi.Compare(lo) < 0 {
				lo, hi, loEx, hiEx = hi, lo, hiEx, loEx
			}
			from, to := echomq.Inclusive(lo), echomq.Inclusive(hi)
			if loEx {
				from = echomq.Exclusive(lo)
			}
			if hiEx {
				to = echomq.Exclusive(hi)
			}
			cases := []struct {
				name string
				w    Window
				in   func(echomq.EntryID) bool
			}{
				{"all", All, func(echomq.EntryID) bool { return true }},
				{"since", Since(t0), func(e echomq.EntryID) bool { return e.Ms >= msOf(t0) }},
				{"between", Between(t0, t1), func(e echomq.EntryID) bool { return e.Ms >= msOf(t0) && e.Ms <= msOf(t1) }},
				{"point", Between(t0, t0), func(e echomq.EntryID) bool { return e.Ms == msOf(t0) }},
				{"last", Last(d).WithClock(func() time.Time { return now }), func(e echomq.EntryID) bool {
					return e.Ms >= msOf(now.Add(-d)) && e.Ms <= msOf(now)
				}},
				{"ids", IDs(echomq.Span(from, to)), func(e echomq.EntryID) bool {
					c0, c1 := e.Compare(lo), e.Compare(hi)
					return (c0 > 0 || c0 == 0 && !loEx) && (c1 < 0 || c1 == 0 && !hiEx)
				}},
			}
			for _, c := range cases {
				got, err := Fold(b.ctx, c.w, collect(), s)
				require.NoError(t, err, c.name)
				want := naive(s.Name(), all, c.in)
				require.Equal(t, want, got, "%s %s", c.name, c.w)

				counts, err := Fold(b.ctx, c.w, CountBy("room"), s)
				require.NoError(t, err)
				wantCounts := map[string]int64{}
				var sum float64
				for _, ev := range want {
					wantCounts[ev.Fields.Value("room")]++
					p, _ := strconv.Atoi(ev.Fields.Value("points"))
					sum += float64(p)
				}
				require.Equal(t, wantCounts, counts.Per, c.name)
				require.Equal(t, int64(len(want)), counts.Total, c.name)
				sums, err := Fold(b.ctx, c.w, Sum("points"), s)
				require.NoError(t, err)
				require.InDelta(t, sum, sums.Group("").Sum, 0, c.name)
			}
		}
	}
}

func TestWindowResolve(t *testing.T) {
	t.Parallel()
	t0 := base.Add(1500 * time.Microsecond) // inside millisecond 1
	now := base.Add(time.Hour)
	ms := func(d time.Duration) uint64 { return msOf(base.Add(d)) }
	tests := []struct {
		name     string
		w        Window
		from, to string
	}{
		{"all", All, "-", "+"},
		{"since", Since(t0), strconv.FormatUint(ms(time.Millisecond), 10) + "-0", "+"},
		{"between", Between(t0, t0), strconv.FormatUint(ms(time.Millisecond), 10) + "-0", strconv.FormatUint(ms(time.Millisecond), 10) + "-4194303"},
		{"last", Last(time.Minute), strconv.FormatUint(ms(59*time.Minute), 10) + "-0", strconv.FormatUint(ms(time.Hour), 10) + "-4194303"},
		{"ids", IDs(echomq.Span(echomq.Exclusive(echomq.EntryID{Ms: 5, Seq: 1}), echomq.Unbounded)), "(5-1", "+"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := tt.w.Resolve(now)
			require.NoError(t, err)
			require.Equal(t, tt.from, lowerString(r.From))
			require.Equal(t, tt.to, upperString(r.To))
		})
	}
}
