package views_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/projection"
	"github.com/echomq/echomq/tables"
)

var quiet = slog.New(slog.DiscardHandler)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// guesses is the size of the simulated run: CODEMOJEX_REBUILD_GUESSES, or
// 1500 (a size a busy 2-core machine runs in seconds under the race
// detector; docs/codemojex.md gives the command for the 10 000-guess run).
func guesses(t *testing.T) int {
	if s := os.Getenv("CODEMOJEX_REBUILD_GUESSES"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		return n
	}
	return 1500
}

// After a simulated run (players guessing concurrently in two classic rooms
// and a blind one, cracks closing games, the sweep closing the rest, the
// views following live), every view equals a fold of the whole log and a
// rebuild.
func TestRebuildEqualsLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	defer client.Close()
	clk := &clock{t: time.Now()}
	e, err := codemojex.New(client, &codemojex.Config{Queue: echomqtest.Queue(t), Clock: clk.now, Logger: quiet})
	require.NoError(t, err)
	v, err := views.New(e, &views.Config{Snapshots: true, Block: 100 * time.Millisecond, SnapshotInterval: 200 * time.Millisecond})
	require.NoError(t, err)
	w, err := e.Worker(&lanes.WorkerConfig{Concurrency: 16, Logger: quiet})
	require.NoError(t, err)
	rctx, stopViews := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { require.NoError(t, v.Run(rctx)) })
	require.NoError(t, w.Start(ctx))

	var rooms []codemojex.Room
	for _, spec := range []codemojex.RoomSpec{
		{Name: "Den", Prize: 1000, Duration: time.Hour},
		{Name: "Snack", Set: "food", Prize: 100, Free: true, Cells: 12, Duration: time.Hour},
		{Name: "Vault", Mode: rules.Blind, Prize: 500, Duration: time.Hour},
	} {
		r, err := e.CreateRoom(ctx, spec)
		require.NoError(t, err)
		rooms = append(rooms, r)
	}
	total := guesses(t)
	const nPlayers = 40
	per := (total + nPlayers - 1) / nPlayers
	var submitted, cracks atomic.Int64
	var pw sync.WaitGroup
	for i := range nPlayers {
		pw.Go(func() {
			p, _, err := e.SignIn(ctx, codemojex.Identity{Provider: "dev", Subject: fmt.Sprintf("p%d", i)})
			if !assertNoError(t, err) {
				return
			}
			_, err = e.Grant(ctx, p.ID, codemojex.Keys, int64(per+10))
			assertNoError(t, err)
			_, err = e.Grant(ctx, p.ID, codemojex.Clips, int64(per+10))
			assertNoError(t, err)
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			joined := map[string]codemojex.Game{} // room → the game this player is in
			for k := 0; k < per && submitted.Load() < int64(total); {
				r := rooms[(i+k)%len(rooms)]
				g, ok := joined[r.ID]
				if !ok {
					j, err := e.Join(ctx, p.ID, r.ID)
					if !assertNoError(t, err) {
						return
					}
					if g, err = e.Game(ctx, j.Game); !assertNoError(t, err) {
						return
					}
					joined[r.ID] = g
				}
				codes := randomGuess(rng, g.Keyboard)
				crack := r.Mode == rules.Classic && rng.IntN(300) == 0
				if crack {
					codes = secret(t, client, e, g.ID) // a crack now and then
				}
				_, err := e.Submit(ctx, p.ID, g.ID, codes)
				if errors.Is(err, codemojex.ErrClosed) || errors.Is(err, codemojex.ErrExpired) {
					delete(joined, r.ID) // the game closed under us: join the next one
					continue
				}
				if !assertNoError(t, err) {
					return
				}
				if crack {
					cracks.Add(1)
				}
				submitted.Add(1)
				k++
			}
		})
	}
	t0 := time.Now()
	pw.Wait()
	t.Logf("submitted in %s", time.Since(t0))
	require.False(t, t.Failed())
	// Let the worker drain, then let the timer close what is still open.
	require.Eventually(t, func() bool {
		st, err := e.Jobs().Stats(ctx)
		require.NoError(t, err)
		return st.Waiting+st.Active+st.Backoff+st.Delayed == 0
	}, 120*time.Second, 20*time.Millisecond)
	t.Logf("drained at %s", time.Since(t0))
	clk.add(time.Hour)
	_, err = e.Sweep(ctx)
	require.NoError(t, err)
	require.NoError(t, w.Stop(ctx))
	require.NoError(t, v.Sync(ctx))
	stopViews()
	wg.Wait()
	t.Logf("%d guesses submitted, %d cracks", submitted.Load(), cracks.Load())

	scored := len(read(t, e, codemojex.StreamGuessScored))
	require.Greater(t, scored, total/2, "most guesses scored (some are void: their game closed first)")
	require.NotEmpty(t, read(t, e, codemojex.StreamGameRevealed), "the blind game was revealed")

	requireRebuilt(t, v.Feed, views.FeedProjection(), views.Sources(e, views.FeedStreams))
	requireRebuilt(t, v.Results, views.ResultsProjection(), views.Sources(e, views.ResultsStreams))
	requireRebuilt(t, v.RoomStats, views.RoomStatsProjection(), views.Sources(e, views.RoomStatsStreams))
	requireRebuilt(t, v.Boards, views.BoardsProjection(), views.Sources(e, views.BoardsStreams))
	requireRebuilt(t, v.Lobby, views.LobbyProjection(), views.Sources(e, views.LobbyStreams))
	requireRebuilt(t, v.Players, views.PlayersProjection(), views.Sources(e, views.PlayersStreams))

	// And the views tell the same story as the log.
	stats, _, err := v.RoomStats.State(ctx)
	require.NoError(t, err)
	sum := 0
	for _, c := range stats.Rooms {
		sum += c.Guesses
	}
	require.Equal(t, scored, sum)
	// A restart resumes from the snapshots and agrees.
	again, err := views.New(e, &views.Config{Snapshots: true})
	require.NoError(t, err)
	start, err := again.Boards.Open(ctx)
	require.NoError(t, err)
	require.Equal(t, projection.StartResumed, start)
	require.NoError(t, again.Sync(ctx))
	requireSameJSON(t, first(v.Boards.State(ctx)), first(again.Boards.State(ctx)))
}

// requireRebuilt checks that the live state equals a fold of the whole log
// and a rebuild.
func requireRebuilt[S any](t *testing.T, live *projection.Live[S], p projection.Projection[S], srcs []projection.Source) {
	t.Helper()
	ctx := context.Background()
	state, _, err := live.State(ctx)
	require.NoError(t, err)
	folded, err := projection.Fold(ctx, projection.All, p, srcs...)
	require.NoError(t, err)
	requireSameJSON(t, folded, state)
	fresh, err := projection.NewLive(p, nil, srcs...)
	require.NoError(t, err)
	_, err = fresh.Rebuild(ctx)
	require.NoError(t, err)
	requireSameJSON(t, first(fresh.State(ctx)), state)
}

func requireSameJSON(t *testing.T, want, got any) {
	t.Helper()
	a, err := json.Marshal(want)
	require.NoError(t, err)
	b, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(a), string(b))
}

func first[A, B, C any](a A, _ B, _ C) A { return a }

func assertNoError(t *testing.T, err error) bool {
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

func randomGuess(rng *rand.Rand, kb []string) []string {
	perm := rng.Perm(len(kb))[:rules.CodeLength]
	out := make([]string, len(perm))
	for i, j := range perm {
		out[i] = kb[j]
	}
	return out
}

var secrets sync.Map

// secret reads a game's secret from its record (a test's privilege).
func secret(t *testing.T, c *echomq.Client, e *codemojex.Engine, game string) []string {
	if s, ok := secrets.Load(game); ok {
		return s.([]string)
	}
	b, ok, err := tables.New(c, e.Queue(), "games").Get(context.Background(), game)
	require.NoError(t, err)
	require.True(t, ok)
	var g struct{ Secret string }
	require.NoError(t, json.Unmarshal(b, &g))
	s := strings.Split(g.Secret, ",")
	secrets.Store(game, s)
	return s
}

func read(t *testing.T, e *codemojex.Engine, stream string) []echomq.Event {
	evs, err := e.Stream(stream).Read(context.Background(), echomq.All, nil)
	require.NoError(t, err)
	return evs
}
