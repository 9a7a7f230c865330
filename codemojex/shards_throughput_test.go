package codemojex

import (
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

// TestShardsThroughput measures scored guesses per second of the game on
// one shard and on three, on a 3-master cluster: three rooms, players
// guessing concurrently, one scoring worker per shard. It runs only with
// CODEMOJEX_SHARD_PLAYERS set (players per room; docs/codemojex.md gives
// the command), as a measurement, not a check.
func TestShardsThroughput(t *testing.T) {
	players, _ := strconv.Atoi(os.Getenv("CODEMOJEX_SHARD_PLAYERS"))
	if players == 0 {
		t.Skip("a measurement: set CODEMOJEX_SHARD_PLAYERS")
	}
	guesses := 20
	cl := echomqtest.StartCluster(t)
	c := connect(t, cl.URL())
	for _, n := range []int{1, 3} {
		s, err := NewShards(ctx, c, &Config{Queue: "cmtp" + strconv.Itoa(n), Logger: quiet}, n)
		require.NoError(t, err)
		var rooms []Room
		used := map[int]bool{}
		for len(rooms) < 3 {
			r, err := s.CreateRoom(ctx, RoomSpec{Name: "tp", Duration: time.Hour})
			require.NoError(t, err)
			if k := RoomShard(r.ID, n); n == 1 || !used[k] {
				used[k] = true
				rooms = append(rooms, r)
			}
		}
		seats := seatPlayers(t, s, rooms, players, int64(guesses))
		for _, e := range s.Engines() {
			w, err := e.Worker(nil)
			require.NoError(t, err)
			require.NoError(t, w.Start(ctx))
			t.Cleanup(func() { _ = w.Stop(ctx) })
		}
		var accepted atomic.Int64
		start := time.Now()
		var wg sync.WaitGroup
		for i, st := range seats {
			wg.Go(func() {
				for round := range guesses {
					if _, err := st.e.Submit(ctx, st.p.ID, st.game, st.codes(round, i)); err == nil {
						accepted.Add(1)
					}
				}
			})
		}
		wg.Wait()
		echomqtest.WaitFor(t, 5*time.Minute, "every guess scored", func() bool {
			var scored int64
			for _, e := range s.Engines() {
				info, err := e.Stream(StreamGuessScored).Info(ctx)
				if err != nil {
					return false
				}
				scored += info.Length
			}
			return scored >= accepted.Load()
		})
		el := time.Since(start)
		t.Logf("%d shard(s), %d players: %d guesses scored in %v, %.0f/s", n, len(seats), accepted.Load(), el.Round(time.Millisecond), float64(accepted.Load())/el.Seconds())
	}
}
