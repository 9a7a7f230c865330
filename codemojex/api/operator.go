package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
)

// RoomRequest is the body of POST /api/op/rooms; see [codemojex.RoomSpec].
// Duration is a Go duration ("35h", "90m").
type RoomRequest struct {
	// Shard, on a sharded game, is the shard to create the room in.
	// Defaults to none: the shard of the room's id.
	Shard    *int   `json:"shard,omitempty"`
	Name     string `json:"name"`
	Set      string `json:"set"`
	Mode     string `json:"mode"`
	Duration string `json:"duration"`
	Prize    int64  `json:"prize"`
	Fee      int64  `json:"fee"`
	Free     bool   `json:"free"`
	Cells    int    `json:"cells"`
}

func (s *Server) createRoom(w http.ResponseWriter, r *http.Request) {
	var req RoomRequest
	if err := decode(w, r, &req); err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	spec := codemojex.RoomSpec{Name: req.Name, Set: req.Set, Mode: rules.Mode(req.Mode), Prize: req.Prize, Fee: req.Fee, Free: req.Free, Cells: req.Cells}
	if req.Duration != "" {
		d, err := codemojex.ParseDuration(req.Duration)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		spec.Duration = d
	}
	var room codemojex.Room
	var err error
	if req.Shard != nil {
		room, err = s.e.CreateRoomIn(r.Context(), spec, *req.Shard)
	} else {
		room, err = s.e.CreateRoom(r.Context(), spec)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out, err := s.roomOut(room)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"room": out})
}

// roomOut is a room as the API shows it: its id under "room", as every
// other answer names a room (the record itself keeps "id"), and its shard.
func (s *Server) roomOut(r codemojex.Room) (map[string]any, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	m["room"] = m["id"]
	delete(m, "id")
	m["shard"] = codemojex.RoomShard(r.ID, s.e.Len())
	return m, nil
}

// GrantRequest is the body of POST /api/op/grant. Player is a player id
// or a player's name.
type GrantRequest struct {
	Player   string `json:"player"`
	Currency string `json:"currency"`
	Amount   int64  `json:"amount"`
}

func (s *Server) grant(w http.ResponseWriter, r *http.Request) {
	var req GrantRequest
	if err := decode(w, r, &req); err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	// The player is an id or a name, as everywhere an operator names one.
	p, err := s.e.PlayerByName(r.Context(), req.Player)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	wal, err := s.e.Grant(r.Context(), p.ID, codemojex.Currency(req.Currency), req.Amount)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"player": p.ID, "balance": wal})
}

func (s *Server) closeGame(w http.ResponseWriter, r *http.Request) {
	st, err := s.e.Close(r.Context(), r.PathValue("id"), codemojex.ReasonOperator)
	if errors.Is(err, codemojex.ErrAlreadyClosed) {
		writeJSON(w, http.StatusConflict, map[string]any{
			"error":      ErrorDetail{Code: CodeClosed, Message: messageOf(err, CodeClosed)},
			"settlement": st,
		})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"settlement": st})
}

func (s *Server) sweep(w http.ResponseWriter, r *http.Request) {
	res, err := s.e.Sweep(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sweep": res})
}
