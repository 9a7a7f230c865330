package views

import (
	"math"
	"slices"
	"strconv"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/projection"
)

// LobbyRoom is a room as room-opened announced it.
type LobbyRoom struct {
	Entry    Entry  `json:"entry"`
	Name     string `json:"name"`
	Set      string `json:"set"`
	Mode     string `json:"mode"`
	Free     bool   `json:"free"`
	Fee      int64  `json:"fee"`
	Currency string `json:"currency"`
	Prize    int64  `json:"prize"`
	// DurationMS is how long a game of the room runs.
	DurationMS int64 `json:"duration_ms"`
}

// LobbyGame is what the lobby knows of one game.
type LobbyGame struct {
	Room    string `json:"room"`
	Entry   Entry  `json:"entry"`
	EndsMS  int64  `json:"ends_ms"`
	Prize   int64  `json:"prize"`
	Best    int    `json:"best"`
	Sealed  bool   `json:"sealed"`
	Settled bool   `json:"settled"`
	Players int    `json:"players"`
}

// Lobby is the state of the lobby: rooms and their games.
type Lobby struct {
	Rooms map[string]*LobbyRoom `json:"rooms"`
	Games map[string]*LobbyGame `json:"games"`
}

// Card is one room of the lobby.
type Card struct {
	Room     string `json:"room"`
	Name     string `json:"name"`
	Set      string `json:"set"`
	Mode     string `json:"mode"`
	Free     bool   `json:"free"`
	Fee      int64  `json:"fee"`
	Currency string `json:"currency"`
	// DurationMS is how long a game of the room runs, so a player sees a
	// short game before joining it.
	DurationMS int64 `json:"duration_ms"`
	// Status is "active" while a game runs, else "waiting".
	Status string `json:"status"`
	// Game is the running game, "" while waiting.
	Game    string `json:"game,omitempty"`
	EndsMS  int64  `json:"ends_ms,omitempty"`
	Players int    `json:"players"`
	// Prize is the running game's prize, else the room's.
	Prize int64 `json:"prize"`
	// Progress is the leader's best as a percentage of 600, to two decimals
	// (0 in a blind game until its reveal).
	Progress float64 `json:"progress"`
}

// Cards returns the lobby, one card per room, oldest room first.
func (l *Lobby) Cards() []Card {
	latest := map[string]string{}
	for id, g := range l.Games {
		if cur, ok := latest[g.Room]; !ok || l.Games[cur].Entry.Compare(g.Entry) < 0 {
			latest[g.Room] = id
		}
	}
	cards := make([]Card, 0, len(l.Rooms))
	for id, r := range l.Rooms {
		c := Card{
			Room: id, Name: r.Name, Set: r.Set, Mode: r.Mode, Free: r.Free, Fee: r.Fee, Currency: r.Currency,
			DurationMS: r.DurationMS, Status: codemojex.RoomWaiting, Prize: r.Prize,
		}
		if gid, ok := latest[id]; ok && !l.Games[gid].Settled {
			g := l.Games[gid]
			c.Status, c.Game, c.EndsMS, c.Players, c.Prize = codemojex.RoomActive, gid, g.EndsMS, g.Players, g.Prize
			if !g.Sealed {
				c.Progress = math.Round(float64(g.Best)*10000/rules.MaxScore) / 100
			}
		}
		cards = append(cards, c)
	}
	slices.SortFunc(cards, func(a, b Card) int { return l.Rooms[a.Room].Entry.Compare(l.Rooms[b.Room].Entry) })
	return cards
}

// LobbyProjection folds room-opened, game-started, player-joined,
// guess-scored and game-settled into the lobby. A room's running game is
// its latest started game unless it is settled, which does not depend on
// the order the streams are folded in.
func LobbyProjection() projection.Projection[*Lobby] {
	return projection.Projection[*Lobby]{
		Name:    "codemojex-lobby",
		Version: 2, // 2: rooms carry their games' duration
		Init:    func() *Lobby { return &Lobby{Rooms: map[string]*LobbyRoom{}, Games: map[string]*LobbyGame{}} },
		Apply: func(l *Lobby, ev projection.Event) *Lobby {
			f := ev.Fields
			if ev.Stream == codemojex.StreamRoomOpened {
				free, _ := strconv.ParseBool(f.Value("free"))
				l.Rooms[f.Value("room")] = &LobbyRoom{
					Entry: Entry(ev.Entry), Name: f.Value("name"), Set: f.Value("set"), Mode: f.Value("mode"),
					Free: free, Fee: num(ev, "fee"), Currency: f.Value("currency"), Prize: num(ev, "prize"),
					DurationMS: num(ev, "duration_ms"),
				}
				return l
			}
			game := f.Value("game")
			g := l.Games[game]
			if g == nil {
				g = &LobbyGame{}
				l.Games[game] = g
			}
			if g.Room == "" {
				g.Room = f.Value("room")
			}
			switch ev.Stream {
			case codemojex.StreamGameStarted:
				g.Entry, g.EndsMS, g.Prize = Entry(ev.Entry), num(ev, "ends_ms"), num(ev, "prize")
				g.Sealed = f.Value("mode") == string(rules.Blind)
				g.Players++
			case codemojex.StreamPlayerJoined:
				g.Players++
			case codemojex.StreamGuessScored:
				g.Best = max(g.Best, inum(ev, "points"))
			case codemojex.StreamGameSettled:
				g.Settled = true
			}
			return l
		},
	}
}
