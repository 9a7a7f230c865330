package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/echomq/echomq"
)

// playerTally is one player's row of the fold.
type playerTally struct {
	Player  string `json:"player"`
	Name    string `json:"name"`
	Guesses int    `json:"guesses"`
	Best    int    `json:"best"`
	Total   int    `json:"total"`
}

// roomTally is one room's row of the fold.
type roomTally struct {
	Room    string `json:"room"`
	Name    string `json:"name"`
	Games   int    `json:"games"`
	Guesses int    `json:"guesses"`
}

// settlement is a game-settled event checked against the fold.
type settlement struct {
	Game   string `json:"game"`
	Room   string `json:"room"`
	Winner string `json:"winner"`
	Name   string `json:"name"`
	Points int    `json:"points"`
	Agrees bool   `json:"agrees"` // the fold's best score in the game is the winner's
}

type folded struct {
	players []playerTally
	rooms   []roomTally
	settled []settlement
}

// fold reads the story's span of each stream and folds the reads: points per
// player and guesses per room from guess-scored, with names from
// game-started, player-joined and room-opened, checked against game-settled.
func (d *demo) fold(ctx context.Context) (folded, error) {
	span := echomq.Window(d.start, d.start.Add(storySpan))
	reads := map[string][]echomq.Event{}
	for _, name := range demoStreams {
		evs, err := d.stream(name).Read(ctx, span, nil)
		if err != nil {
			return folded{}, err
		}
		reads[name] = evs
	}
	names := map[string]string{}
	var rooms []roomTally
	roomAt := map[string]int{}
	for _, ev := range reads[streamRoomOpened] {
		room := ev.Fields.Value("room")
		names[room] = ev.Fields.Value("name")
		roomAt[room] = len(rooms)
		rooms = append(rooms, roomTally{Room: room, Name: names[room]})
	}
	for _, name := range []string{streamGameStarted, streamPlayerJoined} { // the first join starts the game
		for _, ev := range reads[name] {
			names[ev.Fields.Value("player")] = ev.Fields.Value("name")
		}
	}
	players := map[string]*playerTally{}
	best := map[[2]string]int{} // (game, player) → best points
	games := map[string]map[string]bool{}
	for _, ev := range reads[streamGuessScored] {
		p, room, game := ev.Fields.Value("player"), ev.Fields.Value("room"), ev.Fields.Value("game")
		pts, _ := strconv.Atoi(ev.Fields.Value("points"))
		t := players[p]
		if t == nil {
			t = &playerTally{Player: p, Name: names[p]}
			players[p] = t
		}
		t.Guesses++
		t.Total += pts
		t.Best = max(t.Best, pts)
		best[[2]string{game, p}] = max(best[[2]string{game, p}], pts)
		if games[room] == nil {
			games[room] = map[string]bool{}
		}
		games[room][game] = true
		if i, ok := roomAt[room]; ok {
			rooms[i].Guesses++
		}
	}
	for i := range rooms {
		rooms[i].Games = len(games[rooms[i].Room])
	}
	var f folded
	for _, t := range players {
		f.players = append(f.players, *t)
	}
	slices.SortFunc(f.players, func(x, y playerTally) int {
		return cmp.Or(cmp.Compare(y.Total, x.Total), cmp.Compare(x.Name, y.Name), cmp.Compare(x.Player, y.Player))
	})
	f.rooms = rooms
	for _, ev := range reads[streamGameSettled] {
		game := ev.Fields.Value("game")
		var winners []struct {
			Player string `json:"player"`
		}
		_ = json.Unmarshal([]byte(ev.Fields.Value("winners")), &winners) // a bad value names no winner: "NO"
		winner := ""
		if len(winners) > 0 {
			winner = winners[0].Player
		}
		pts, _ := strconv.Atoi(ev.Fields.Value("best"))
		top := 0
		for k, v := range best {
			if k[0] == game {
				top = max(top, v)
			}
		}
		f.settled = append(f.settled, settlement{
			Game: game, Room: ev.Fields.Value("room"), Winner: winner,
			Name: names[winner], Points: pts, Agrees: winner != "" && best[[2]string{game, winner}] == pts && pts == top,
		})
	}
	return f, nil
}
