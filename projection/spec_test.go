package projection

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

func TestParseSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Spec
		wantErr bool
	}{
		{in: "count", want: Spec{Fold: "count"}},
		{in: " count,by=room ", want: Spec{Fold: "count", By: "room"}},
		{in: "sum,field=points,by=player", want: Spec{Fold: "sum", Field: "points", By: "player"}},
		{in: "buckets,every=hour", want: Spec{Fold: "buckets", Every: time.Hour}},
		{in: "buckets,every=90s", want: Spec{Fold: "buckets", Every: 90 * time.Second}},
		{in: "top,field=points,n=10", want: Spec{Fold: "top", Field: "points", N: 10}},
		{in: "latest,by=room", want: Spec{Fold: "latest", By: "room"}},
		{in: "distinct,field=a=b", want: Spec{Fold: "distinct", Field: "a=b"}},
		{in: "", wantErr: true},
		{in: "median,field=x", wantErr: true},
		{in: "count,field=room", wantErr: true},
		{in: "count,by", wantErr: true},
		{in: "count,by=", wantErr: true},
		{in: "count,by=a,by=b", wantErr: true},
		{in: "count,color=red", wantErr: true},
		{in: "sum", wantErr: true},
		{in: "buckets", wantErr: true},
		{in: "buckets,every=0s", wantErr: true},
		{in: "buckets,every=week", wantErr: true},
		{in: "buckets,every=1500us", wantErr: true},
		{in: "top,field=points", wantErr: true},
		{in: "top,field=points,n=ten", wantErr: true},
		{in: "top,field=points,n=-1", wantErr: true},
		{in: "latest", wantErr: true},
		{in: "distinct,field=x,n=3", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSpec(tt.in)
			if tt.wantErr {
				require.ErrorIs(t, err, echomq.ErrInvalidArgument)
				require.ErrorAs(t, err, new(*echomq.ArgumentError))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			again, err := ParseSpec(got.String())
			require.NoError(t, err)
			require.Equal(t, got, again)
		})
	}
}

func TestParseWindow(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	tests := []struct {
		in      string
		want    Window
		wantErr error
	}{
		{in: "all", want: All},
		{in: "", want: All},
		{in: "last:1h", want: Last(time.Hour)},
		{in: "since:2026-01-02T15:04:05Z", want: Since(t0)},
		{in: "between:2026-01-02T15:04:05Z,2026-01-02T16:04:05Z", want: Between(t0, t0.Add(time.Hour))},
		{in: "ids:(1704117200000-5,+", want: IDs(echomq.Span(echomq.Exclusive(echomq.EntryID{Ms: 1704117200000, Seq: 5}), echomq.Unbounded))},
		{in: "all:x", wantErr: echomq.ErrInvalidArgument},
		{in: "last:0s", wantErr: echomq.ErrInvalidArgument},
		{in: "last:soon", wantErr: echomq.ErrInvalidArgument},
		{in: "since:yesterday", wantErr: echomq.ErrInvalidArgument},
		{in: "between:2026-01-02T16:04:05Z,2026-01-02T15:04:05Z", wantErr: echomq.ErrInvalidRange},
		{in: "between:2026-01-02T16:04:05Z", wantErr: echomq.ErrInvalidArgument},
		{in: "ids:5-0,3-0", wantErr: echomq.ErrInvalidRange},
		{in: "ids:x,+", wantErr: echomq.ErrMalformedID},
		{in: "ids:5-0", wantErr: echomq.ErrInvalidArgument},
		{in: "yesterday", wantErr: echomq.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseWindow(tt.in)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			again, err := ParseWindow(got.String())
			require.NoError(t, err)
			require.Equal(t, got.String(), again.String())
		})
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"count", "count,by=room", "sum,field=points,by=player", "buckets,every=hour",
		"top,field=points,by=player,n=3", "latest,by=room", "distinct,field=x", "stats,field=a",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			require.ErrorIs(t, err, echomq.ErrInvalidArgument)
			return
		}
		again, err := ParseSpec(sp.String())
		require.NoError(t, err, sp.String())
		require.Equal(t, sp, again)
	})
}

func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{
		"all", "last:1h", "since:2026-01-02T15:04:05Z", "ids:-,+", "ids:(1-1,2-2",
		"between:2026-01-02T15:04:05Z,2026-01-02T15:04:05Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWindow(s)
		if err != nil {
			return
		}
		_, err = w.Resolve(time.Now())
		require.NoError(t, err)
		again, err := ParseWindow(w.String())
		require.NoError(t, err, w.String())
		require.Equal(t, w.String(), again.String())
	})
}

func FuzzDecodeSnapshot(f *testing.F) {
	f.Add(encodeSnapshot("p", 1, 3, Checkpoint{{Stream: "emq:{q}:stream:a", Last: echomq.EntryID{Ms: 5, Seq: 2}}}, []byte(`{"total":3}`)))
	f.Add([]byte("{}\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, cp, state, err := decodeSnapshot("k", b)
		if err != nil {
			require.ErrorIs(t, err, ErrSnapshot)
			return
		}
		again := encodeSnapshot(h.Name, h.Version, h.Applied, cp, state)
		h2, cp2, state2, err := decodeSnapshot("k", again)
		require.NoError(t, err)
		require.Equal(t, h.Name, h2.Name)
		require.Equal(t, h.Version, h2.Version)
		require.Equal(t, cp, cp2)
		require.Equal(t, state, state2)
	})
}
