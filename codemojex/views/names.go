package views

import (
	"context"

	"github.com/echomq/echomq/projection"
)

// Names are the display names of players and rooms, read from the players
// and lobby views, so pages and answers show names instead of ids without
// reading a record.
type Names struct {
	Players map[string]string
	Rooms   map[string]string
}

// Player returns a player's name, or "" when no view knows it.
func (n Names) Player(id string) string { return n.Players[id] }

// Room returns a room's name, or "" when no view knows it.
func (n Names) Room(id string) string { return n.Rooms[id] }

// Names returns the names of the players and rooms asked for; unknown
// ones are left out.
func (v *Views) Names(ctx context.Context, players, rooms []string) (Names, error) {
	out := Names{Players: map[string]string{}, Rooms: map[string]string{}}
	if len(players) > 0 {
		err := v.Players.Read(ctx, func(ps *Players, _ projection.Checkpoint) {
			for _, p := range players {
				if h := ps.Players[p]; h != nil && h.Tally.Name != "" {
					out.Players[p] = h.Tally.Name
				}
			}
		})
		if err != nil {
			return Names{}, err
		}
	}
	if len(rooms) > 0 {
		err := v.Lobby.Read(ctx, func(l *Lobby, _ projection.Checkpoint) {
			for _, r := range rooms {
				if lr := l.Rooms[r]; lr != nil {
					out.Rooms[r] = lr.Name
				}
			}
		})
		if err != nil {
			return Names{}, err
		}
	}
	return out, nil
}
