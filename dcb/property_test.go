package dcb_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
)

// TestQueryEqualsFilteredStreams: on random data with random tag sets,
// every query read, from random positions with random page sizes, equals a
// filter of raw reads of every stream merged in queue order.
func TestQueryEqualsFilteredStreams(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	s, c := setup(t)
	streams := []string{"s0", "s1", "s2", "s3", "s4"}
	randTags := func(least int) []string {
		var tags []string
		for _, k := range []string{"a", "b", "c"} {
			if r.IntN(2) == 0 {
				tags = append(tags, fmt.Sprintf("%s=%d", k, r.IntN(3)))
			}
		}
		if len(tags) < least {
			tags = append(tags, fmt.Sprintf("a=%d", r.IntN(3)))
		}
		return tags
	}
	for range 60 {
		n := 1 + r.IntN(4)
		evs := make([]dcb.Append, n)
		for i := range evs {
			evs[i] = ev(streams[r.IntN(len(streams))], randTags(1), "r", strconv.Itoa(r.Int()))
		}
		mustAppend(t, s, nil, evs...)
		if r.IntN(3) == 0 {
			_, err := c.Stream(s.Queue(), streams[r.IntN(len(streams))]).Append(ctx, echomq.F("untagged", "1"), nil)
			require.NoError(t, err)
		}
	}
	// The model: every tagged event of every stream, in queue order.
	type rawEv struct {
		stream string
		ev     echomq.Event
	}
	var all []rawEv
	for _, st := range streams {
		evs, err := c.Stream(s.Queue(), st).Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		for _, e := range evs {
			if e.Position > 0 {
				all = append(all, rawEv{st, e})
			}
		}
	}
	slices.SortFunc(all, func(a, b rawEv) int { return int(a.ev.Position) - int(b.ev.Position) })
	head, err := s.Head(ctx)
	require.NoError(t, err)
	require.Len(t, all, int(head), "positions are dense: one per tagged event")

	for round := range 200 {
		var q dcb.Query
		for range 1 + r.IntN(3) {
			var it dcb.Item
			for _, st := range streams {
				if r.IntN(3) == 0 {
					it.Types = append(it.Types, st)
				}
			}
			it.Tags = randTags(1)
			q = append(q, it)
		}
		after := uint64(r.IntN(int(head) + 1))
		var want []string
		for _, e := range all {
			if e.ev.Position > after && matches(q, e.stream, e.ev.Tags) {
				want = append(want, fmt.Sprintf("%d %s %s", e.ev.Position, e.stream, e.ev.ID))
			}
		}
		var got []string
		limit := 1 + r.IntN(20)
		for from := after; ; {
			p, err := s.Read(ctx, q, from, &dcb.ReadOpts{Limit: limit})
			require.NoError(t, err)
			require.LessOrEqual(t, len(p.Events), limit)
			for _, e := range p.Events {
				got = append(got, fmt.Sprintf("%d %s %s", e.Position, e.Stream, e.ID))
			}
			require.GreaterOrEqual(t, p.Next, from)
			from = p.Next
			if !p.More() {
				break
			}
		}
		require.Equal(t, want, got, "round %d: query %+v after %d limit %d", round, q, after, limit)
	}
}

func matches(q dcb.Query, stream string, tags []string) bool {
	for _, it := range q {
		if len(it.Types) > 0 && !slices.Contains(it.Types, stream) {
			continue
		}
		all := true
		for _, g := range it.Tags {
			if !slices.Contains(tags, g) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// TestSparseIntersectionPages: two large tag sets with a small
// intersection make each read examine a bounded number of members; the
// pages still return exactly the matches, in order.
func TestSparseIntersectionPages(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	var want []uint64
	pos := uint64(0)
	for range 12 {
		batch := make([]dcb.Append, 0, 250)
		for i := range 250 {
			pos++
			switch {
			case i == 100:
				batch = append(batch, ev("x", []string{"a=1", "b=1"}))
				want = append(want, pos)
			case i%2 == 0:
				batch = append(batch, ev("x", []string{"a=1"}))
			default:
				batch = append(batch, ev("x", []string{"b=1"}))
			}
		}
		mustAppend(t, s, nil, batch...)
	}
	var got []uint64
	calls := 0
	for from := uint64(0); ; {
		p, err := s.Read(ctx, dcb.Query{{Types: []string{"x"}, Tags: []string{"a=1", "b=1"}}}, from, &dcb.ReadOpts{Limit: 1})
		require.NoError(t, err)
		calls++
		got = append(got, positions(p.Events)...)
		from = p.Next
		if !p.More() {
			break
		}
	}
	require.Equal(t, want, got)
	require.Greater(t, calls, len(want), "bounded pages")
}
