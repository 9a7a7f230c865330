package views_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/projection"
)

// story is a small log: a room, a classic game with two players that a
// crack settles, and a blind game revealed at its close.
func story(t *testing.T) []projection.Event {
	t.Helper()
	m, err := echomq.NewMinter(1, func() time.Time { return time.UnixMilli(1_800_000_000_000) })
	require.NoError(t, err)
	var evs []projection.Event
	add := func(stream string, kv ...string) {
		id := m.NextID(echomq.BrandEvent)
		evs = append(evs, projection.Event{Event: echomq.Event{ID: id, Entry: id.EntryID(), Fields: echomq.F(kv...)}, Stream: stream})
	}
	g1, g2 := "GAM0000000001a", "GAM0000000002a"
	ges := func() string { return m.NextID(codemojex.BrandGuess).String() }
	add(codemojex.StreamRoomOpened, "room", "ROM1", "name", "Den", "set", "animals", "mode", "classic", "free", "false", "fee", "1", "currency", "keys", "prize", "100")
	add(codemojex.StreamGameStarted, "game", g1, "room", "ROM1", "player", "PA", "name", "ann", "mode", "classic", "prize", "100", "ends_ms", "1")
	add(codemojex.StreamPlayerJoined, "game", g1, "room", "ROM1", "player", "PB", "name", "bob")
	add(codemojex.StreamGuessScored, "game", g1, "room", "ROM1", "player", "PA", "guess", ges(), "attempt", "1", "points", "560", "pct", "93", "best", "560")
	add(codemojex.StreamGuessScored, "game", g1, "room", "ROM1", "player", "PB", "guess", ges(), "attempt", "1", "points", "560", "pct", "93", "best", "560")
	add(codemojex.StreamGuessScored, "game", g1, "room", "ROM1", "player", "PB", "guess", ges(), "attempt", "2", "points", "600", "pct", "100", "best", "600")
	add(codemojex.StreamGameSettled, "game", g1, "room", "ROM1", "reason", "crack", "prize", "100", "paid", "100", "winners", `[{"player":"PB","amount":100}]`, "players", "2", "guesses", "3", "best", "600")
	add(codemojex.StreamGameStarted, "game", g2, "room", "ROM1", "player", "PA", "name", "ann", "mode", "blind", "prize", "100", "ends_ms", "2")
	add(codemojex.StreamGuessScored, "game", g2, "room", "ROM1", "player", "PA", "guess", ges(), "attempt", "1", "sealed", "1")
	add(codemojex.StreamGameSettled, "game", g2, "room", "ROM1", "reason", "timer", "prize", "100", "paid", "100", "winners", `[{"player":"PA","amount":100}]`)
	add(codemojex.StreamGameRevealed, "game", g2, "room", "ROM1", "board", `[{"player":"PA","best":420,"at":7}]`)
	return evs
}

// shuffle interleaves the streams differently, keeping each stream's order
// (what following the streams live can do).
func shuffle(evs []projection.Event, rng *rand.Rand) []projection.Event {
	by := map[string][]projection.Event{}
	var names []string
	for _, ev := range evs {
		if by[ev.Stream] == nil {
			names = append(names, ev.Stream)
		}
		by[ev.Stream] = append(by[ev.Stream], ev)
	}
	var out []projection.Event
	for len(out) < len(evs) {
		n := names[rng.IntN(len(names))]
		if len(by[n]) > 0 {
			out = append(out, by[n][0])
			by[n] = by[n][1:]
		}
	}
	return out
}

func foldJSON[S any](t *testing.T, p projection.Projection[S], evs []projection.Event) string {
	t.Helper()
	s, err := projection.FoldSeq(p, projection.Events(evs))
	require.NoError(t, err)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

// Every view folds to the same state however its streams interleave.
func TestFoldsIgnoreInterleaving(t *testing.T) {
	t.Parallel()
	evs := story(t)
	rng := rand.New(rand.NewPCG(1, 1))
	for range 50 {
		mixed := shuffle(evs, rng)
		require.JSONEq(t, foldJSON(t, views.FeedProjection(), evs), foldJSON(t, views.FeedProjection(), mixed))
		require.JSONEq(t, foldJSON(t, views.RoomStatsProjection(), evs), foldJSON(t, views.RoomStatsProjection(), mixed))
		require.JSONEq(t, foldJSON(t, views.BoardsProjection(), evs), foldJSON(t, views.BoardsProjection(), mixed))
		require.JSONEq(t, foldJSON(t, views.LobbyProjection(), evs), foldJSON(t, views.LobbyProjection(), mixed))
		require.JSONEq(t, foldJSON(t, views.PlayersProjection(), evs), foldJSON(t, views.PlayersProjection(), mixed))
	}
}

// What the views say about the story.
func TestFoldsTellTheStory(t *testing.T) {
	t.Parallel()
	evs := story(t)
	boards, err := projection.FoldSeq(views.BoardsProjection(), projection.Events(evs))
	require.NoError(t, err)
	b1 := boards.Games["GAM0000000001a"]
	require.Equal(t, []views.Row{{Rank: 1, Player: "PB", Name: "bob", Best: 600, Pct: 100}, {Rank: 2, Player: "PA", Name: "ann", Best: 560, Pct: 93}}, b1.Leaderboard(10))
	require.Equal(t, 3, b1.Attempts)
	b2 := boards.Games["GAM0000000002a"]
	require.True(t, b2.Sealed)
	require.Equal(t, 420, b2.Leader(), "revealed")
	require.Empty(t, (&views.Board{Sealed: true, Players: map[string]*views.BoardEntry{"PA": {Best: 600}}}).Leaderboard(10), "sealed until revealed")

	lobby, err := projection.FoldSeq(views.LobbyProjection(), projection.Events(evs))
	require.NoError(t, err)
	cards := lobby.Cards()
	require.Len(t, cards, 1)
	require.Equal(t, codemojex.RoomWaiting, cards[0].Status, "the latest game is settled")
	require.Equal(t, "Den", cards[0].Name)

	stats, err := projection.FoldSeq(views.RoomStatsProjection(), projection.Events(evs))
	require.NoError(t, err)
	c := stats.Room("ROM1")
	require.Equal(t, views.RoomCount{Games: 2, Joins: 3, Players: map[string]bool{"PA": true, "PB": true}, Guesses: 4, Settled: 2, Cracks: 1, DiamondsWon: 200}, c)

	players, err := projection.FoldSeq(views.PlayersProjection(), projection.Events(evs))
	require.NoError(t, err)
	pb := players.Of("PB")
	require.Equal(t, views.Tally{Name: "bob", Games: 1, Guesses: 2, Points: 1160, Best: 600, Wins: 1, Won: 100}, pb.Tally)
	require.Len(t, pb.History, 2)

	feed, err := projection.FoldSeq(views.FeedProjection(), projection.Events(evs))
	require.NoError(t, err)
	require.Len(t, feed.Items, 9, "two starts, a join, four scored guesses, two settlements")
	recent := feed.Since(0, 2, "")
	require.Equal(t, "settled", recent[0].Kind, "newest first")
	require.True(t, recent[1].Sealed)
	one := feed.Since(0, 100, recent[0].Game)
	require.NotEmpty(t, one)
	for _, it := range one {
		require.Equal(t, recent[0].Game, it.Game, "only the game asked for")
	}
	require.Empty(t, feed.Since(0, 100, "GAM0000000000z"))

	results, err := projection.FoldSeq(views.ResultsProjection(), projection.Events(evs))
	require.NoError(t, err)
	day := views.Day(evs[0].Time())
	require.Len(t, results.Days[day], 2)
	require.Equal(t, []codemojex.Payout{{Player: "PB", Amount: 100}}, results.Days[day][0].Winners)
}
