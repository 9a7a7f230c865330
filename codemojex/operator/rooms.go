package operator

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
)

// roomRow is a room as the rooms page lists it, with its running game.
type roomRow struct {
	codemojex.Room
	GameStatus string
	GameEndsMS int64
}

// roomForm is the create-room form as sent, shown again when refused.
type roomForm struct {
	Name, Set, Mode, Duration, Prize, Fee, Cells string
	Free                                         bool
}

func (h *Handler) roomsPage(w http.ResponseWriter, r *http.Request, s *session) {
	h.rooms(w, r, s, http.StatusOK, blankRoom, "")
}

// blankRoom is the create form as first shown: the engine's defaults.
var blankRoom = roomForm{Set: "animals", Mode: string(rules.Classic), Duration: "24h", Prize: "0", Fee: "1", Cells: "0"}

// rooms renders the rooms page with status, the create form f and a
// refusal message.
func (h *Handler) rooms(w http.ResponseWriter, r *http.Request, s *session, status int, f roomForm, refusal string) {
	p := &page{Title: "Rooms", Session: s, Sets: h.e.SetNames(), Room: f, Error: refusal}
	rooms, err := h.e.Rooms(r.Context())
	if err != nil {
		h.internal(w, r, s, "list rooms", err)
		return
	}
	for _, room := range slices.Backward(rooms) { // newest first
		row := roomRow{Room: room}
		if room.Game != "" {
			// The game's status tells open from closing; a failed read
			// still lists the room.
			if g, err := h.e.Game(r.Context(), room.Game); err == nil {
				row.GameStatus, row.GameEndsMS = g.Status, g.EndsMS
			}
		}
		p.Rooms = append(p.Rooms, row)
	}
	h.render(w, r, status, "rooms", p)
}

// createRoom creates the room the form describes, with the engine's own
// checks; a refused form is shown again with the reason.
func (h *Handler) createRoom(w http.ResponseWriter, r *http.Request, s *session) {
	f := roomForm{
		Name: r.PostForm.Get("name"), Set: r.PostForm.Get("set"), Mode: r.PostForm.Get("mode"),
		Duration: strings.TrimSpace(r.PostForm.Get("duration")), Prize: strings.TrimSpace(r.PostForm.Get("prize")),
		Fee: strings.TrimSpace(r.PostForm.Get("fee")), Cells: strings.TrimSpace(r.PostForm.Get("cells")),
		Free: r.PostForm.Get("free") != "",
	}
	spec, msg := f.spec()
	if msg != "" {
		h.rooms(w, r, s, http.StatusBadRequest, f, msg+" Nothing was changed.")
		return
	}
	room, err := h.e.CreateRoom(r.Context(), spec)
	if err != nil {
		if status, msg, ok := refusal(err); ok {
			h.rooms(w, r, s, status, f, msg)
			return
		}
		h.internal(w, r, s, "create room", err)
		return
	}
	h.log.Info("operator: room created", "room", room.ID, "name", room.Name, "set", room.Set, "mode", room.Mode,
		"prize", room.Prize, "fee", room.Fee, "free", room.Free)
	h.accepted(w, r, "/op/rooms", fmt.Sprintf("Room %q created: %s.", room.Name, room.ID))
}

// spec reads the form into a room spec; an empty number or duration is
// the engine's default. It returns a message for a value that is not a
// number or a duration at all; the engine checks the ranges.
func (f roomForm) spec() (codemojex.RoomSpec, string) {
	spec := codemojex.RoomSpec{Name: f.Name, Set: f.Set, Mode: rules.Mode(f.Mode), Free: f.Free}
	if f.Duration != "" {
		d, err := codemojex.ParseDuration(f.Duration)
		if err != nil {
			return spec, sentence(err)
		}
		spec.Duration = d
	}
	for _, n := range []struct {
		name, val string
		to        *int64
	}{{"prize", f.Prize, &spec.Prize}, {"fee", f.Fee, &spec.Fee}} {
		if n.val == "" {
			continue
		}
		v, err := strconv.ParseInt(n.val, 10, 64)
		if err != nil {
			return spec, "Invalid " + n.name + ": must be a whole number."
		}
		*n.to = v
	}
	if f.Cells != "" {
		c, err := strconv.Atoi(f.Cells)
		if err != nil {
			return spec, "Invalid cells: must be a whole number."
		}
		spec.Cells = c
	}
	return spec, ""
}

// closing is a running game an operator asked to close, shown for the
// confirmation.
type closing struct {
	Game     codemojex.Game
	RoomName string
}

// confirmClose asks the operator to confirm a close: closing pays the
// prize at once and cannot be undone, so one click never does it.
func (h *Handler) confirmClose(w http.ResponseWriter, r *http.Request, s *session) {
	game := r.PathValue("id")
	g, err := h.e.Game(r.Context(), game)
	if err != nil {
		if status, msg, ok := refusal(err); ok {
			h.rooms(w, r, s, status, blankRoom, msg)
			return
		}
		h.internal(w, r, s, "read the game", err)
		return
	}
	if g.Status != codemojex.StatusOpen {
		h.rooms(w, r, s, http.StatusConflict, blankRoom, "Game "+game+" is "+g.Status+" already: nothing to close.")
		return
	}
	c := &closing{Game: g, RoomName: g.Room}
	if room, err := h.e.Room(r.Context(), g.Room); err == nil {
		c.RoomName = room.Name
	}
	h.render(w, r, http.StatusOK, "close", &page{Title: "Close a game", Session: s, Closing: c})
}

// closeGame closes a running game now and settles it, once the operator
// confirmed (confirm=yes); without the confirmation it asks for it.
func (h *Handler) closeGame(w http.ResponseWriter, r *http.Request, s *session) {
	game := r.PathValue("id")
	if r.PostForm.Get("confirm") != "yes" {
		h.confirmClose(w, r, s)
		return
	}
	st, err := h.e.Close(r.Context(), game, codemojex.ReasonOperator)
	if err != nil {
		if errors.Is(err, codemojex.ErrAlreadyClosed) {
			msg := "Game " + game + " was closed already"
			if st.Reason != "" {
				msg += " (" + st.Reason + ")"
			}
			h.rooms(w, r, s, http.StatusConflict, blankRoom, msg+": nothing was changed.")
			return
		}
		if status, msg, ok := refusal(err); ok {
			h.rooms(w, r, s, status, blankRoom, msg)
			return
		}
		h.internal(w, r, s, "close game", err)
		return
	}
	h.log.Info("operator: game closed", "game", st.Game, "room", st.Room, "paid", st.Paid, "winners", len(st.Payouts))
	h.accepted(w, r, "/op/rooms", fmt.Sprintf("Game %s closed: %d of %d diamonds paid to %s; %s, %s.",
		st.Game, st.Paid, st.Prize, plural(int64(len(st.Payouts)), "winner", "winners"), plural(int64(st.Players), "player", "players"),
		plural(int64(st.Guesses), "guess", "guesses")))
}

// plural is n and the word for n of a thing: "1 winner", "0 winners".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// refusal returns the status and the message of an engine refusal, which
// wrote nothing; ok is false for any other error.
func refusal(err error) (status int, msg string, ok bool) {
	switch {
	case errors.Is(err, codemojex.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, echomq.ErrInvalidArgument):
		status = http.StatusBadRequest
	default:
		return 0, "", false
	}
	return status, sentence(err) + " Nothing was changed.", true
}

// sentence is an engine refusal as a sentence: its package prefixes
// dropped, a capital first and a full stop last.
func sentence(err error) string {
	msg := err.Error()
	for _, p := range []string{"codemojex: ", "echomq: ", "rules: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

// internal answers an engine failure that is not a refusal: it is logged,
// and the page says no more than that.
func (h *Handler) internal(w http.ResponseWriter, r *http.Request, s *session, what string, err error) {
	h.log.Error("operator: "+what, "path", r.URL.Path, "err", err)
	h.render(w, r, http.StatusInternalServerError, "refused", &page{
		Title: "Error", Session: s,
		Error: "The engine failed to " + what + "; see the server log, and try again.",
	})
}
