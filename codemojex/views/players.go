package views

import (
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/projection"
)

// HistorySize is how many guesses a player's history keeps.
const HistorySize = 500

// Tally is a player's running totals over every game.
type Tally struct {
	Name string `json:"name"`
	// Games counts the games joined, Guesses the guesses scored.
	Games   int `json:"games"`
	Guesses int `json:"guesses"`
	// Points sums and Best maxes the points of scored guesses whose points
	// are public (a blind game's stay out).
	Points int64 `json:"points"`
	Best   int   `json:"best"`
	// Wins counts the prizes won, Won the diamonds they paid.
	Wins int   `json:"wins"`
	Won  int64 `json:"won"`
}

// HistoryItem is one scored guess of a player, without its codes (the
// engine joins those in for their owner only).
type HistoryItem struct {
	Entry   Entry  `json:"entry"`
	Game    string `json:"game"`
	Guess   string `json:"guess"`
	Attempt int    `json:"attempt"`
	Points  int    `json:"points"`
	Sealed  bool   `json:"sealed,omitempty"`
}

// PlayerView is one player's tally and history.
type PlayerView struct {
	Tally   Tally         `json:"tally"`
	History []HistoryItem `json:"history"`
}

// Players is the state of the player views.
type Players struct {
	Players map[string]*PlayerView `json:"players"`
}

// Of returns a player's view (empty when they did nothing yet).
func (s *Players) Of(player string) PlayerView {
	if v, ok := s.Players[player]; ok {
		return *v
	}
	return PlayerView{History: []HistoryItem{}}
}

// PlayersProjection folds game-started, player-joined, guess-scored and
// game-settled into a tally and a history per player.
func PlayersProjection() projection.Projection[*Players] {
	return projection.Projection[*Players]{
		Name:    "codemojex-players",
		Version: 1,
		Init:    func() *Players { return &Players{Players: map[string]*PlayerView{}} },
		Apply: func(s *Players, ev projection.Event) *Players {
			of := func(p string) *PlayerView {
				v := s.Players[p]
				if v == nil {
					v = &PlayerView{History: []HistoryItem{}}
					s.Players[p] = v
				}
				return v
			}
			f := ev.Fields
			switch ev.Stream {
			case codemojex.StreamGameStarted, codemojex.StreamPlayerJoined:
				v := of(f.Value("player"))
				v.Tally.Games++
				v.Tally.Name = f.Value("name")
			case codemojex.StreamGuessScored:
				v := of(f.Value("player"))
				it := HistoryItem{
					Entry: Entry(ev.Entry), Game: f.Value("game"), Guess: f.Value("guess"), Attempt: inum(ev, "attempt"),
					Points: inum(ev, "points"), Sealed: f.Value("sealed") == "1",
				}
				v.Tally.Guesses++
				v.Tally.Points += int64(it.Points)
				v.Tally.Best = max(v.Tally.Best, it.Points)
				v.History = insertSorted(v.History, it, func(h HistoryItem) Entry { return h.Entry }, HistorySize)
			case codemojex.StreamGameSettled:
				for _, p := range payouts(ev) {
					v := of(p.Player)
					v.Tally.Wins++
					v.Tally.Won += p.Amount
				}
			}
			return s
		},
	}
}
