package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/projection"
)

// Cell is one key of a game's keyboard: the code a guess sends and the
// emoji drawn for it.
type Cell struct {
	Code  string `json:"code"`
	Glyph string `json:"glyph"`
	Name  string `json:"name,omitempty"`
}

// Totals are a game's public counts.
type Totals struct {
	Players  int `json:"players"`
	Attempts int `json:"attempts"`
	// Best and BestPct are the leader's best; left out (Sealed) in a blind
	// game until its reveal.
	Best    int  `json:"best"`
	BestPct int  `json:"best_pct"`
	Sealed  bool `json:"sealed,omitempty"`
}

// MarshalJSON leaves best and best_pct out of sealed totals, so no 0
// stands for a best nobody may see yet.
func (t Totals) MarshalJSON() ([]byte, error) {
	type plain Totals
	if !t.Sealed {
		return json.Marshal(plain(t))
	}
	return json.Marshal(struct {
		plain
		Best    struct{} `json:"best,omitzero"`
		BestPct struct{} `json:"best_pct,omitzero"`
	}{plain: plain(t)})
}

// GameView is the answer of GET /api/games/{id}.
type GameView struct {
	codemojex.Game
	// RoomName is the room's name.
	RoomName   string                `json:"room_name,omitempty"`
	Cells      []Cell                `json:"cells"`
	TimeLeftMS int64                 `json:"time_left_ms"`
	Totals     Totals                `json:"totals"`
	You        *codemojex.Membership `json:"you,omitempty"`
	// Check is a settled blind game's proof: how its commitment is
	// recomputed from the revealed secret and salt, and the result.
	Check *BlindCheck `json:"check,omitempty"`
}

// BlindCheck shows that a blind game's reveal matches the commitment it
// published when it opened.
type BlindCheck struct {
	// Formula is how the commitment is computed.
	Formula string `json:"formula"`
	// Command recomputes it in a shell.
	Command string `json:"command"`
	// Recomputed is the commitment recomputed from the reveal, and Matches
	// whether it equals the published one.
	Recomputed string `json:"recomputed"`
	Matches    bool   `json:"matches"`
}

// blindCheck recomputes a settled blind game's commitment.
func blindCheck(g codemojex.Game) *BlindCheck {
	if g.Commitment == "" || g.Salt == "" || len(g.Secret) != rules.CodeLength {
		return nil
	}
	var r rules.Reveal
	for i, c := range g.Secret {
		r.Secret[i] = rules.Code(c)
	}
	r.Salt = g.Salt
	got, err := rules.CommitmentOf(r)
	if err != nil {
		return nil
	}
	return &BlindCheck{
		Formula:    "sha256(code1 0x1E code2 0x1E … code6 0x1E salt), lowercase hex",
		Command:    `printf '` + strings.Join(g.Secret, `\036`) + `\036%s' ` + g.Salt + ` | sha256sum`,
		Recomputed: got,
		Matches:    rules.Verify(g.Commitment, r) == nil,
	}
}

func read[S any](ctx context.Context, l *projection.Live[S], fn func(S)) error {
	return l.Read(ctx, func(s S, _ projection.Checkpoint) { fn(s) })
}

func (s *Server) lobby(w http.ResponseWriter, r *http.Request) {
	var cards []views.Card
	if err := read(r.Context(), s.views.Lobby, func(l *views.Lobby) { cards = l.Cards() }); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"rooms": cards})
}

// RoomStats are the public counts of a room.
type RoomStats struct {
	Games       int   `json:"games"`
	Joins       int   `json:"joins"`
	Players     int   `json:"players"`
	Guesses     int   `json:"guesses"`
	Settled     int   `json:"settled"`
	Cracks      int   `json:"cracks"`
	DiamondsWon int64 `json:"diamonds_won"`
}

func (s *Server) room(w http.ResponseWriter, r *http.Request) {
	room, err := s.e.Room(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var st RoomStats
	err = read(r.Context(), s.views.RoomStats, func(rs *views.RoomStats) {
		c := rs.Room(room.ID)
		st = RoomStats{Games: c.Games, Joins: c.Joins, Players: len(c.Players), Guesses: c.Guesses, Settled: c.Settled, Cracks: c.Cracks, DiamondsWon: c.DiamondsWon}
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out, err := s.roomOut(room)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"room": out, "stats": st})
}

func (s *Server) gameView(ctx context.Context, id string, viewer string) (GameView, error) {
	g, err := s.e.Game(ctx, id)
	if err != nil {
		return GameView{}, err
	}
	v := GameView{Game: g, Cells: []Cell{}}
	if set, err := s.e.Set(g.Set); err == nil {
		for _, code := range g.Keyboard {
			c, _ := set.Cell(rules.Code(code))
			v.Cells = append(v.Cells, Cell{Code: code, Glyph: c.Glyph, Name: c.Name})
		}
	}
	if g.Status == codemojex.StatusOpen {
		v.TimeLeftMS = max(0, g.EndsMS-s.e.Now().UnixMilli())
	}
	if g.Status == codemojex.StatusSettled {
		v.Check = blindCheck(g)
	}
	if n, err := s.views.Names(ctx, nil, []string{g.Room}); err == nil {
		v.RoomName = n.Room(g.Room)
	}
	err = read(ctx, s.views.Boards, func(bs *views.Boards) {
		b := bs.Games[id]
		if b == nil {
			return
		}
		v.Totals = Totals{Players: len(b.Players), Attempts: b.Attempts, Sealed: b.Sealed && !b.Revealed}
		if !v.Totals.Sealed {
			v.Totals.Best = b.Leader()
			v.Totals.BestPct = rules.Percent(v.Totals.Best)
		}
	})
	if err != nil {
		return GameView{}, err
	}
	if viewer != "" {
		if m, ok, err := s.e.Standing(ctx, id, viewer); err != nil {
			return GameView{}, err
		} else if ok {
			v.You = &m
		}
	}
	return v, nil
}

func (s *Server) game(w http.ResponseWriter, r *http.Request) {
	viewer := ""
	if p, ok := s.viewer(r); ok {
		viewer = p.ID
	}
	v, err := s.gameView(r.Context(), r.PathValue("id"), viewer)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"game": v})
}

func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	limit, err := intParam(r, "limit", 20, 1, 100)
	if err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	if _, err := s.e.Game(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	rows, sealed := []views.Row{}, false
	err = read(r.Context(), s.views.Boards, func(bs *views.Boards) {
		b := bs.Games[id]
		rows = b.Leaderboard(limit)
		sealed = b != nil && b.Sealed && !b.Revealed
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"game": id, "sealed": sealed, "leaderboard": rows})
}

func (s *Server) feed(w http.ResponseWriter, r *http.Request) {
	window, err := durationParam(r, "window", 10*time.Minute, 24*time.Hour)
	if err == nil && window == 0 {
		window = 10 * time.Minute
	}
	limit, lerr := intParam(r, "limit", 50, 1, views.FeedSize)
	if err == nil {
		err = lerr
	}
	if err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	since := s.e.Now().Add(-window).UnixMilli()
	game := r.URL.Query().Get("game")
	var items []views.FeedItem
	if err := read(r.Context(), s.views.Feed, func(f *views.Feed) { items = f.Since(since, limit, game) }); err != nil {
		s.fail(w, r, err)
		return
	}
	out, err := s.namedFeed(r.Context(), items)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"window": window.String(), "feed": out})
}

func (s *Server) results(w http.ResponseWriter, r *http.Request) {
	day := r.URL.Query().Get("day")
	if day == "" {
		day = views.Day(s.e.Now())
	} else if _, err := time.Parse(time.DateOnly, day); err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, "query parameter day must be a date YYYY-MM-DD")
		return
	}
	res := []views.Result{}
	err := read(r.Context(), s.views.Results, func(rs *views.Results) {
		// Newest first.
		for _, v := range slices.Backward(rs.Days[day]) {
			res = append(res, v)
		}
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out, err := s.namedResults(r.Context(), res)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"day": day, "results": out})
}
