package dcb_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/projection"
)

var errJoined = errors.New("already joined")

// join is the rule "a player joins a game once, while it is open".
func join(game, player string) dcb.Decision[map[string]bool] {
	g, p := dcb.Tags("game", game), dcb.Tags("player", player)
	return dcb.Decision[map[string]bool]{
		Query: dcb.Query{
			{Types: []string{"game-opened", "game-closed"}, Tags: g},
			{Types: []string{"player-joined"}, Tags: append(g, p...)},
		},
		Fold: projection.Projection[map[string]bool]{
			Init:  func() map[string]bool { return map[string]bool{} },
			Apply: func(s map[string]bool, ev projection.Event) map[string]bool { s[ev.Stream] = true; return s },
		},
		Decide: func(s map[string]bool) ([]dcb.Append, error) {
			if !s["game-opened"] || s["game-closed"] {
				return nil, errors.New("game not open")
			}
			if s["player-joined"] {
				return nil, errJoined
			}
			return []dcb.Append{{Stream: "player-joined", Tags: append(g, p...), Fields: echomq.F("player", player)}}, nil
		},
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	_, err := dcb.Decide(ctx, s, join("G1", "P1"), nil)
	require.ErrorContains(t, err, "game not open")
	mustAppend(t, s, nil, ev("game-opened", dcb.Tags("game", "G1")))
	got, err := dcb.Decide(ctx, s, join("G1", "P1"), nil)
	require.NoError(t, err)
	require.Len(t, got, 1)
	_, err = dcb.Decide(ctx, s, join("G1", "P1"), nil)
	require.ErrorIs(t, err, errJoined)
	_, err = dcb.Decide(ctx, s, join("G1", "P2"), nil)
	require.NoError(t, err)
}

type joined struct {
	Player string `json:"player"`
}

func TestDecideTyped(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	view := echomq.NewTyped(c.Stream(s.Queue(), "player-joined"), echomq.JSONFields[joined](), nil)
	g := dcb.Tags("game", "G1")
	d := dcb.TypedDecision[joined, int]{
		Query: dcb.Query{{Types: []string{"player-joined"}, Tags: g}},
		View:  view,
		Apply: func(n int, _ dcb.TypedEvent[joined]) int { return n + 1 },
		Decide: func(n int) ([]dcb.TypedAppend[joined], error) {
			if n >= 2 {
				return nil, errors.New("game full")
			}
			return []dcb.TypedAppend[joined]{{Stream: "player-joined", Value: joined{Player: "P"}, Tags: g}}, nil
		},
	}
	for range 2 {
		_, err := dcb.DecideTyped(ctx, s, d, nil)
		require.NoError(t, err)
	}
	_, err := dcb.DecideTyped(ctx, s, d, nil)
	require.ErrorContains(t, err, "game full")
	evs, _, err := dcb.ReadTyped(ctx, s, view, d.Query, 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	require.Equal(t, "P", evs[1].Value.Player)
}

func TestFollowResume(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	g := dcb.Tags("game", "G1")
	q := dcb.Query{{Tags: g}}
	mustAppend(t, s, nil, ev("a", g), ev("b", dcb.Tags("game", "G2")), ev("c", g))
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var seen []uint64
	for e, err := range s.Follow(fctx, q, 0, &dcb.FollowOpts{Poll: 10 * time.Millisecond}) {
		require.NoError(t, err)
		seen = append(seen, e.Position)
		if len(seen) == 2 {
			mustAppend(t, s, nil, ev("d", g))
		}
		if len(seen) == 3 {
			cancel()
		}
	}
	require.Equal(t, []uint64{1, 3, 4}, seen)
}
