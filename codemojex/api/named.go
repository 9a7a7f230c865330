package api

import (
	"context"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
)

// NamedPayout is a winner's prize with their name.
type NamedPayout struct {
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Amount int64  `json:"amount"`
}

// FeedEntry is a line of GET /api/feed: the feed item with the names of
// its player, room and winners.
type FeedEntry struct {
	views.FeedItem
	Name     string        `json:"name,omitempty"`
	RoomName string        `json:"room_name,omitempty"`
	Winners  []NamedPayout `json:"winners,omitempty"`
}

// ResultEntry is a line of GET /api/results: the settled game with the
// names of its room and winners.
type ResultEntry struct {
	views.Result
	RoomName string        `json:"room_name,omitempty"`
	Winners  []NamedPayout `json:"winners"`
}

func named(ps []codemojex.Payout, n views.Names) []NamedPayout {
	out := make([]NamedPayout, len(ps))
	for i, p := range ps {
		out[i] = NamedPayout{Player: p.Player, Name: n.Player(p.Player), Amount: p.Amount}
	}
	return out
}

func (s *Server) namedFeed(ctx context.Context, items []views.FeedItem) ([]FeedEntry, error) {
	var players, rooms []string
	for _, it := range items {
		players, rooms = append(players, it.Player), append(rooms, it.Room)
		for _, w := range it.Winners {
			players = append(players, w.Player)
		}
	}
	n, err := s.views.Names(ctx, players, rooms)
	if err != nil {
		return nil, err
	}
	out := make([]FeedEntry, len(items))
	for i, it := range items {
		out[i] = FeedEntry{FeedItem: it, Name: n.Player(it.Player), RoomName: n.Room(it.Room)}
		if len(it.Winners) > 0 {
			out[i].Winners = named(it.Winners, n)
		}
	}
	return out, nil
}

func (s *Server) namedResults(ctx context.Context, rs []views.Result) ([]ResultEntry, error) {
	var players, rooms []string
	for _, r := range rs {
		rooms = append(rooms, r.Room)
		for _, w := range r.Winners {
			players = append(players, w.Player)
		}
	}
	n, err := s.views.Names(ctx, players, rooms)
	if err != nil {
		return nil, err
	}
	out := make([]ResultEntry, len(rs))
	for i, r := range rs {
		out[i] = ResultEntry{Result: r, RoomName: n.Room(r.Room), Winners: named(r.Winners, n)}
	}
	return out, nil
}
