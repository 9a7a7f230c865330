package views

import (
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/projection"
)

// BoardEntry is one player of a game's board.
type BoardEntry struct {
	Name     string `json:"name"`
	Best     int    `json:"best"`
	At       int64  `json:"at"`
	Attempts int    `json:"attempts"`
}

// Board is one game's leaderboard and totals.
type Board struct {
	Room    string                 `json:"room"`
	Mode    string                 `json:"mode"`
	Players map[string]*BoardEntry `json:"players"`
	// Attempts counts the game's scored guesses.
	Attempts int `json:"attempts"`
	// Sealed marks a blind game: its bests are unknown until Revealed.
	Sealed   bool `json:"sealed"`
	Revealed bool `json:"revealed"`
	Settled  bool `json:"settled"`
}

// Boards is the state of the leaderboards: one board per game.
type Boards struct {
	Games map[string]*Board `json:"games"`
}

// Row is one line of a leaderboard.
type Row struct {
	Rank   int    `json:"rank"`
	Player string `json:"player"`
	Name   string `json:"name"`
	Best   int    `json:"best"`
	Pct    int    `json:"pct"`
}

// Leaderboard returns the top limit players of a game by best total (then
// who reached it first): empty for a blind game until its reveal.
func (b *Board) Leaderboard(limit int) []Row {
	rows := []Row{}
	if b == nil || b.Sealed && !b.Revealed {
		return rows
	}
	bests := make([]rules.PlayerBest, 0, len(b.Players))
	for p, e := range b.Players {
		bests = append(bests, rules.PlayerBest{Player: p, Best: e.Best, At: e.At})
	}
	for i, pb := range rules.Rank(bests) {
		if i == limit {
			break
		}
		rows = append(rows, Row{Rank: i + 1, Player: pb.Player, Name: b.Players[pb.Player].Name, Best: pb.Best, Pct: rules.Percent(pb.Best)})
	}
	return rows
}

// Leader returns the top best of a game (0 for a sealed blind game).
func (b *Board) Leader() int {
	if rows := b.Leaderboard(1); len(rows) > 0 {
		return rows[0].Best
	}
	return 0
}

// BoardsProjection folds game-started, player-joined, guess-scored,
// game-revealed and game-settled into a board per game. A player's best is
// their highest total, with the earliest guess that reached it, so the
// state does not depend on the order the streams are folded in.
func BoardsProjection() projection.Projection[*Boards] {
	return projection.Projection[*Boards]{
		Name:    "codemojex-boards",
		Version: 1,
		Init:    func() *Boards { return &Boards{Games: map[string]*Board{}} },
		Apply: func(s *Boards, ev projection.Event) *Boards {
			game := ev.Fields.Value("game")
			if game == "" {
				return s
			}
			b := s.Games[game]
			if b == nil {
				b = &Board{Players: map[string]*BoardEntry{}}
				s.Games[game] = b
			}
			if r := ev.Fields.Value("room"); r != "" {
				b.Room = r
			}
			entry := func(p string) *BoardEntry {
				e := b.Players[p]
				if e == nil {
					e = &BoardEntry{}
					b.Players[p] = e
				}
				return e
			}
			switch ev.Stream {
			case codemojex.StreamGameStarted, codemojex.StreamPlayerJoined:
				if m := ev.Fields.Value("mode"); m != "" {
					b.Mode = m
					b.Sealed = m == string(rules.Blind)
				}
				entry(ev.Fields.Value("player")).Name = ev.Fields.Value("name")
			case codemojex.StreamGuessScored:
				b.Attempts++
				e := entry(ev.Fields.Value("player"))
				e.Attempts++
				if ev.Fields.Value("sealed") == "1" {
					b.Sealed = true
					break
				}
				better(e, inum(ev, "points"), snowflakeOf(ev.Fields.Value("guess")))
			case codemojex.StreamGameRevealed:
				b.Sealed, b.Revealed = true, true
				for _, st := range standings(ev) {
					better(entry(st.Player), st.Best, st.At)
				}
			case codemojex.StreamGameSettled:
				b.Settled = true
			}
			return s
		},
	}
}

// better raises e to points reached at at, keeping the earliest guess of
// the best total.
func better(e *BoardEntry, points int, at int64) {
	if points > e.Best || points > 0 && points == e.Best && at < e.At {
		e.Best, e.At = points, at
	}
}
