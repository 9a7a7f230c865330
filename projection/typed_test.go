package projection

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

type scoredV2 struct {
	Player string `json:"player"`
	Points int    `json:"points"`
}

// TestTypedLive: a live projection over a typed source folds v1 (upcast)
// and v2 events, catching up and then following, and equals the one-shot
// fold; a decode failure stops it with the DecodeError.
func TestTypedLive(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.stream("scored")
	view := echomq.NewTyped[scoredV2](s, nil, &echomq.TypedOpts{Upcasters: []echomq.UpcastFunc{
		func(f echomq.Fields) (echomq.Fields, error) { return f.Rename("score", "points"), nil },
	}})
	_, err := s.Append(b.ctx, echomq.F("player", "p1", "score", "10"), nil)
	require.NoError(t, err)
	tv := NewTyped[scoredV2](view)
	p := Projection[map[string]int]{
		Name: "totals",
		Init: func() map[string]int { return map[string]int{} },
		Apply: TypedApply(tv, func(m map[string]int, _ Event, v scoredV2) map[string]int {
			m[v.Player] += v.Points
			return m
		}),
	}
	l, err := NewLive(p, nil, tv.Source(s))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	require.NoError(t, l.Start(ctx))
	_, err = view.Append(b.ctx, scoredV2{Player: "p1", Points: 5}, nil)
	require.NoError(t, err)
	_, err = view.Append(b.ctx, scoredV2{Player: "p2", Points: 7}, nil)
	require.NoError(t, err)
	echomqtest.WaitFor(t, 15*time.Second, "the live projection to apply 3 events", func() bool { return l.Applied() >= 3 })
	state, _, err := l.State(b.ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"p1": 15, "p2": 7}, state)
	once, err := Fold(b.ctx, All, p, tv.Source(s))
	require.NoError(t, err)
	require.Equal(t, state, once)

	_, err = s.Append(b.ctx, echomq.F("player", "p3", "points", "lots", echomq.VersionField, "2"), nil)
	require.NoError(t, err)
	select {
	case <-l.Stopped():
	case <-time.After(15 * time.Second):
		t.Fatal("the live projection did not stop on the decode failure")
	}
	require.ErrorIs(t, l.Stop(b.ctx), echomq.ErrDecode)
}
