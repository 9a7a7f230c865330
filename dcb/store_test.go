package dcb_test

import (
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

func TestAppendRead(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	g1, g2 := dcb.Tags("game", "G1"), dcb.Tags("game", "G2")
	a := mustAppend(t, s, nil,
		ev("game-opened", g1, "by", "ada"),
		ev("player-joined", append(dcb.Tags("player", "P1"), g1...), "name", "bo"),
		ev("game-opened", g2, "by", "cy"),
	)
	require.Len(t, a, 3)
	for i, x := range a {
		require.Equal(t, uint64(i+1), x.Position)
		require.Equal(t, echomq.BrandEvent, x.ID.Brand())
	}
	head, err := s.Head(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(3), head)

	p, err := s.Read(ctx, dcb.Query{{Tags: g1}}, 0, nil)
	require.NoError(t, err)
	require.Len(t, p.Events, 2)
	require.Equal(t, "game-opened", p.Events[0].Stream)
	require.Equal(t, echomq.F("by", "ada"), p.Events[0].Fields)
	require.Equal(t, a[0].ID, p.Events[0].ID)
	require.Equal(t, []string{"game=G1", "player=P1"}, p.Events[1].Tags)
	require.Equal(t, uint64(2), p.Events[1].Position)
	require.Equal(t, uint64(3), p.Next)

	// A type restricts; two tags must both be present.
	p, err = s.Read(ctx, dcb.Query{{Types: []string{"player-joined"}, Tags: g1}}, 0, nil)
	require.NoError(t, err)
	require.Len(t, p.Events, 1)
	p, err = s.Read(ctx, dcb.Query{{Tags: append(dcb.Tags("player", "P1"), g2...)}}, 0, nil)
	require.NoError(t, err)
	require.Empty(t, p.Events)

	// The stream reads the tagged events as any other, with tags and position.
	evs, err := c.Stream(s.Queue(), "game-opened").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	require.Equal(t, uint64(3), evs[1].Position)
	require.Equal(t, []string{"game=G2"}, evs[1].Tags)
	require.Equal(t, echomq.F("by", "cy"), evs[1].Fields)
}

func TestStreamAppendTags(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	st := c.Stream(s.Queue(), "guessed")
	id, err := st.Append(ctx, echomq.F("word", "cat"), &echomq.AppendOpts{Tags: []string{"game=G1", "player=P1"}})
	require.NoError(t, err)
	ids, err := st.AppendBatch(ctx, []echomq.Fields{echomq.F("word", "dog"), echomq.F("word", "eel")}, &echomq.AppendOpts{Tags: []string{"game=G1"}})
	require.NoError(t, err)
	require.Len(t, ids, 2)
	_, err = st.Append(ctx, echomq.F("word", "untagged"), nil)
	require.NoError(t, err)
	all, head, err := s.ReadAll(ctx, dcb.Query{{Tags: []string{"game=G1"}}}, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(3), head)
	require.Len(t, all, 3)
	require.Equal(t, id, all[0].ID)
	require.Equal(t, ids[1], all[2].ID)

	// Idempotent tagged append: the repeat returns the first receipt.
	o := &echomq.AppendOpts{Tags: []string{"game=G2"}, Key: "k1"}
	id1, err := st.Append(ctx, echomq.F("word", "fox"), o)
	require.NoError(t, err)
	id2, err := st.Append(ctx, echomq.F("word", "fox"), o)
	require.NoError(t, err)
	require.Equal(t, id1, id2)
	h, err := s.Head(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(4), h)

	// An expected top that does not hold is the stream's ConflictError.
	_, err = st.Append(ctx, echomq.F("word", "gnu"), &echomq.AppendOpts{Tags: []string{"game=G2"}, ExpectEmpty: true})
	var ce *echomq.ConflictError
	require.ErrorAs(t, err, &ce)
}

func TestConditionalAppend(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	g1 := dcb.Tags("game", "G1")
	q := dcb.Query{{Types: []string{"game-opened", "game-closed"}, Tags: g1}}
	mustAppend(t, s, nil, ev("game-opened", g1))
	_, after, err := s.ReadAll(ctx, q, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(1), after)

	// Another game's event does not conflict.
	mustAppend(t, s, nil, ev("game-closed", dcb.Tags("game", "G2")))
	got := mustAppend(t, s, &dcb.Condition{Query: q, After: after},
		ev("guessed", append(dcb.Tags("player", "P1"), g1...), "word", "cat"),
		ev("scored", g1, "points", "3"))
	require.Len(t, got, 2)
	require.Equal(t, "scored", got[1].Stream)

	// The game closes: a decision made before it conflicts, on a stream
	// the append does not write.
	closed := mustAppend(t, s, nil, ev("game-closed", g1))
	_, err = s.Append(ctx, []dcb.Append{ev("guessed", g1, "word", "dog")}, &dcb.Condition{Query: q, After: after})
	require.ErrorIs(t, err, echomq.ErrConflict)
	var ce *dcb.ConflictError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "game-closed", ce.Stream)
	require.Equal(t, closed[0].ID, ce.ID)
	require.Equal(t, closed[0].Position, ce.Position)
	all, _, err := s.ReadAll(ctx, dcb.Query{{Types: []string{"guessed"}, Tags: g1}}, 0)
	require.NoError(t, err)
	require.Len(t, all, 1, "nothing written by the refused append")

	// A position above the head is refused.
	_, err = s.Append(ctx, []dcb.Append{ev("guessed", g1)}, &dcb.Condition{Query: q, After: 999})
	require.ErrorIs(t, err, dcb.ErrPosition)
	var pe *dcb.PositionError
	require.True(t, errors.As(err, &pe) && pe.Ahead)
}

func TestUniqueness(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	name := dcb.Tags("name", "ada")
	claim := dcb.Condition{Query: dcb.Query{{Types: []string{"name-claimed"}, Tags: name}}}
	mustAppend(t, s, &claim, ev("name-claimed", name, "player", "P1"))
	_, err := s.Append(ctx, []dcb.Append{ev("name-claimed", name, "player", "P2")}, &claim)
	require.ErrorIs(t, err, echomq.ErrConflict)
	bo := dcb.Tags("name", "bo")
	mustAppend(t, s, &dcb.Condition{Query: dcb.Query{{Types: []string{"name-claimed"}, Tags: bo}}}, ev("name-claimed", bo, "player", "P2"))
}

// TestGroupCommitRace: concurrent conditional appends of one client share
// script calls; each is still decided on its own condition, in order, so
// exactly one claim of a contested name wins and the others name it.
func TestGroupCommitRace(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	for round := range 5 {
		name := dcb.Tags("name", "n"+strconv.Itoa(round))
		claim := &dcb.Condition{Query: dcb.Query{{Types: []string{"claimed"}, Tags: name}}}
		var wg sync.WaitGroup
		results := make([]error, 32)
		ids := make([]echomq.ID, 32)
		for i := range results {
			wg.Go(func() {
				// Each claims its name and counts itself (disjoint: never conflicts).
				mine := dcb.Tags("racer", strconv.Itoa(round*100+i))
				_, err := s.Append(ctx, []dcb.Append{{Stream: "counted", Tags: mine}}, &dcb.Condition{Query: dcb.Query{{Tags: mine}}})
				if err != nil {
					results[i] = err
					return
				}
				got, err := s.Append(ctx, []dcb.Append{{Stream: "claimed", Tags: name}}, claim)
				results[i] = err
				if err == nil {
					ids[i] = got[0].ID
				}
			})
		}
		echomqtest.Join(t, &wg, time.Minute, "the claims")
		var winner echomq.ID
		for i, err := range results {
			if err == nil {
				require.True(t, winner.IsZero(), "two winners")
				winner = ids[i]
			}
		}
		require.False(t, winner.IsZero())
		for _, err := range results {
			if err != nil {
				ce, ok := errors.AsType[*dcb.ConflictError](err)
				require.True(t, ok, "%v", err)
				require.Equal(t, winner, ce.ID)
			}
		}
	}
}

func TestWrongTypeStream(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	_, err := rawcmd.Do(ctx, c, "SET", c.Stream(s.Queue(), "bad").Key(), "x")
	require.NoError(t, err)
	_, err = s.Append(ctx, []dcb.Append{ev("bad", dcb.Tags("k", "v"))}, nil)
	require.ErrorIs(t, err, echomq.ErrWrongType)
	mustAppend(t, s, nil, ev("good", dcb.Tags("k", "v")))
	h, err := s.Head(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(1), h)
}
