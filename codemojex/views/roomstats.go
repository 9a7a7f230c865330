package views

import (
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/projection"
)

// RoomCount is what happened in one room, over all its games.
type RoomCount struct {
	// Games counts the games started.
	Games int `json:"games"`
	// Joins counts the players who joined a game (a player counts once
	// per game).
	Joins int `json:"joins"`
	// Players holds every player who ever joined a game of the room.
	Players map[string]bool `json:"players"`
	// Guesses counts the scored guesses.
	Guesses int `json:"guesses"`
	// Settled counts the settled games, Cracks those a 600 ended.
	Settled int `json:"settled"`
	Cracks  int `json:"cracks"`
	// DiamondsWon sums the prizes paid.
	DiamondsWon int64 `json:"diamonds_won"`
}

// RoomStats is the state of the per-room counts.
type RoomStats struct {
	Rooms map[string]*RoomCount `json:"rooms"`
}

// Room returns the counts of a room (zero when it saw nothing).
func (s *RoomStats) Room(id string) RoomCount {
	if c, ok := s.Rooms[id]; ok {
		return *c
	}
	return RoomCount{Players: map[string]bool{}}
}

// RoomStatsProjection folds game-started, player-joined, guess-scored and
// game-settled into counts per room. Every count is a sum, so the live state
// equals a rebuild whatever order the streams are folded in.
func RoomStatsProjection() projection.Projection[*RoomStats] {
	return projection.Projection[*RoomStats]{
		Name:    "codemojex-room-stats",
		Version: 1,
		Init:    func() *RoomStats { return &RoomStats{Rooms: map[string]*RoomCount{}} },
		Apply: func(s *RoomStats, ev projection.Event) *RoomStats {
			room := ev.Fields.Value("room")
			if room == "" {
				return s
			}
			c := s.Rooms[room]
			if c == nil {
				c = &RoomCount{Players: map[string]bool{}}
				s.Rooms[room] = c
			}
			switch ev.Stream {
			case codemojex.StreamGameStarted:
				c.Games++
				c.Joins++
				c.Players[ev.Fields.Value("player")] = true
			case codemojex.StreamPlayerJoined:
				c.Joins++
				c.Players[ev.Fields.Value("player")] = true
			case codemojex.StreamGuessScored:
				c.Guesses++
			case codemojex.StreamGameSettled:
				c.Settled++
				c.DiamondsWon += num(ev, "paid")
				if ev.Fields.Value("reason") == codemojex.ReasonCrack {
					c.Cracks++
				}
			}
			return s
		},
	}
}
