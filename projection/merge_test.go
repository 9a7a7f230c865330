package projection

import (
	"context"
	"errors"
	"iter"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// TestMergeThreeStreams appends to three streams interleaved (two writers
// with different node ids, plus the same EVT id in two streams to force
// ties) and checks that the fan-in is one strictly ordered sequence equal
// to the sorted union of the three reads, whatever the page size.
func TestMergeThreeStreams(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other := connect(t, b.url, 2)
	srcs := []*echomq.Stream{b.stream("a"), b.stream("b"), b.stream("c")}
	rng := rand.New(rand.NewPCG(2, uint64(time.Now().UnixNano())))
	var wg sync.WaitGroup
	for w, c := range []*echomq.Client{b.client, other} {
		wr := rand.New(rand.NewPCG(uint64(w), rng.Uint64()))
		wg.Go(func() {
			for i := range 150 {
				s := c.Stream(b.queue, srcs[wr.IntN(3)].Name())
				_, err := s.Append(b.ctx, echomq.F("writer", strconv.Itoa(w), "n", strconv.Itoa(i)), nil)
				if err != nil {
					t.Error(err) // not require: this is not the test goroutine
					return
				}
			}
		})
	}
	wg.Wait()
	// Ties: the same id appended to two streams, above both tops. (The
	// writers raced, so some ids were chosen by the engine, not by either
	// minter: the tops are read, and the minter moved past them.)
	for i := range 5 {
		m, err := b.client.Minter(b.ctx, b.queue)
		require.NoError(t, err)
		for _, s := range []*echomq.Stream{srcs[2], srcs[0]} {
			last, err := s.Read(b.ctx, echomq.All, &echomq.ReadOpts{Count: 1, Reverse: true})
			require.NoError(t, err)
			if len(last) > 0 {
				m.AdvancePast(last[0].ID.Snowflake())
			}
		}
		id := m.NextID(echomq.BrandEvent)
		for _, s := range []*echomq.Stream{srcs[2], srcs[0]} {
			require.NoError(t, s.AppendID(b.ctx, id, echomq.F("tie", strconv.Itoa(i))))
		}
	}

	type tagged struct {
		ev  echomq.Event
		src int
	}
	var union []tagged
	for i, s := range srcs {
		for _, ev := range readAll(t, b.ctx, s) {
			union = append(union, tagged{ev, i})
		}
	}
	slices.SortFunc(union, func(x, y tagged) int {
		if c := x.ev.Entry.Compare(y.ev.Entry); c != 0 {
			return c
		}
		return x.src - y.src
	})
	want := make([]Event, len(union))
	for i, u := range union {
		want[i] = Event{Event: u.ev, Stream: srcs[u.src].Name()}
	}
	require.Len(t, want, 310)

	list := []Source{srcs[0], srcs[1], srcs[2]}
	for _, page := range []int{1, 2, 3, 7, 64, 1000} {
		var got []Event
		var prev *Event
		for ev, err := range Merge(b.ctx, echomq.All, list, &MergeOpts{PageSize: page}) {
			require.NoError(t, err)
			if prev != nil {
				c := prev.Entry.Compare(ev.Entry)
				require.True(t, c < 0 || c == 0 && prev.src < ev.src, "page %d: %s then %s", page, prev.Entry, ev.Entry)
			}
			prev = &ev
			ev.src = 0
			got = append(got, ev)
		}
		require.Equal(t, want, got, "page size %d", page)
	}
	folded, err := Fold(b.ctx, All, collect(), list...)
	require.NoError(t, err)
	require.Equal(t, want, folded)

	// Stopping early stops every scan.
	n := 0
	for range Merge(b.ctx, echomq.All, list, &MergeOpts{PageSize: 2}) {
		if n++; n == 5 {
			break
		}
	}
	require.Equal(t, 5, n)
}

// failingSource fails its first read.
type failingSource struct{ key string }

func (f failingSource) Key() string { return f.key }

func (f failingSource) Scan(context.Context, echomq.Range, *echomq.ScanOpts) iter.Seq2[echomq.Event, error] {
	return func(yield func(echomq.Event, error) bool) {
		yield(echomq.Event{}, errors.New("boom"))
	}
}

func (f failingSource) Follow(ctx context.Context, _ *echomq.FollowOpts) iter.Seq2[echomq.Event, error] {
	return f.Scan(ctx, echomq.All, nil)
}

func TestMergeReadFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.stream("ok")
	_, err := s.Append(b.ctx, echomq.F("k", "v"), nil)
	require.NoError(t, err)
	_, err = Fold(b.ctx, All, Count(), s, failingSource{"bad"})
	require.ErrorContains(t, err, "boom")
	var op *echomq.OpError
	require.ErrorAs(t, err, &op)
	require.Equal(t, "fold", op.Op)
}
