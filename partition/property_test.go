package partition_test

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/projection"
)

// perKey is a projection whose state records, per key, the values in the
// order folded: equal states mean the same events in the same order per
// key, and the same totals.
func perKey() projection.Projection[map[string][]string] {
	return projection.Projection[map[string][]string]{
		Init: func() map[string][]string { return map[string][]string{} },
		Apply: func(s map[string][]string, ev projection.Event) map[string][]string {
			k := ev.Fields.Value("key")
			s[k] = append(s[k], ev.Fields.Value("v"))
			return s
		},
	}
}

type order struct {
	Key string `json:"key"`
	V   string `json:"v"`
}

// TestWindowAndProjectionEqualOneStream is the property: for random
// partition counts, keys and windows, a time-window read, a typed read and
// a projection over the partitioned stream equal those over the same
// events (same ids, same payloads) in one plain stream.
func TestWindowAndProjectionEqualOneStream(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 30))
	for round := range 6 {
		p := []int{1, 2, 3, 5, 8, 16}[round]
		q := echomqtest.Queue(t)
		s, err := partition.Create(ctx, c, q, "orders", p)
		require.NoError(t, err)
		for i := range 150 + rng.IntN(150) {
			key := "k" + strconv.Itoa(rng.IntN(12))
			_, err := s.Append(ctx, key, echomq.F("key", key, "v", strconv.Itoa(i)), nil)
			require.NoError(t, err)
		}
		all, err := s.Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		// The same events in one stream, in merged order, under their ids
		// (ids are unique per partition; the property needs them unique
		// across the stream too, which the test checks).
		one := c.Stream(q, "one")
		for i, ev := range all {
			if i > 0 && ev.Entry == all[i-1].Entry {
				t.Skip("two partitions minted the same id: the single-stream copy cannot hold both")
			}
			require.NoError(t, one.AppendID(ctx, ev.ID, ev.Fields))
		}
		t0, t1 := all[0].Time(), all[len(all)-1].Time()
		span := t1.Sub(t0)
		for range 5 {
			a := t0.Add(time.Duration(rng.Int64N(int64(span) + 1)))
			b := a.Add(time.Duration(rng.Int64N(int64(span) + 1)))
			w := echomq.Window(a, b)
			got, err := s.Read(ctx, w, nil)
			require.NoError(t, err)
			want, err := one.Read(ctx, w, nil)
			require.NoError(t, err)
			require.Equal(t, want, got, "P=%d window [%v, %v]", p, a, b)

			pw := projection.Between(a, b)
			gotState, err := projection.Fold(ctx, pw, perKey(), s)
			require.NoError(t, err)
			viaSources, err := projection.Fold(ctx, pw, perKey(), s.Sources()...)
			require.NoError(t, err)
			wantState, err := projection.Fold(ctx, pw, perKey(), one)
			require.NoError(t, err)
			require.Equal(t, wantState, gotState, "P=%d", p)
			require.Equal(t, wantState, viaSources, "P=%d", p)

			typed := partition.NewTyped[order](s, nil, nil)
			tgot, err := typed.Read(ctx, w, nil)
			require.NoError(t, err)
			twant, err := echomq.NewTyped[order](one, nil, nil).Read(ctx, w, nil)
			require.NoError(t, err)
			require.Len(t, tgot, len(twant))
			for i := range twant {
				require.Equal(t, twant[i].Value, tgot[i].Value)
				require.Equal(t, twant[i].ID, tgot[i].ID)
			}
		}
	}
}
