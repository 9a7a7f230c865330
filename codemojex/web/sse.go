package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/echomq/echomq/codemojex"
)

// feedFields are the event fields the live feed passes on; the rest (guess
// and job ids, keyboards, commitments) stay server-side.
var feedFields = []string{"game", "room", "player", "name", "attempt", "points", "pct", "best", "sealed", "reason", "prize", "paid", "players", "guesses"}

// name adds the names of the notice's player, room and winners (from the
// views, when the handler has them) to m.
func (h *Handler) name(ctx context.Context, m map[string]any, winners string) {
	if h.cfg.Views == nil {
		return
	}
	player, _ := m["player"].(string)
	room, _ := m["room"].(string)
	var ps []codemojex.Payout
	if winners != "" {
		_ = json.Unmarshal([]byte(winners), &ps)
	}
	players := []string{player}
	for _, p := range ps {
		players = append(players, p.Player)
	}
	n, err := h.cfg.Views.Names(ctx, players, []string{room})
	if err != nil {
		return
	}
	if _, has := m["name"]; !has && n.Player(player) != "" {
		m["name"] = n.Player(player)
	}
	if n.Room(room) != "" {
		m["room_name"] = n.Room(room)
	}
	if len(ps) > 0 {
		ws := make([]map[string]any, len(ps))
		for i, p := range ps {
			ws[i] = map[string]any{"player": p.Player, "name": n.Player(p.Player), "amount": p.Amount}
		}
		m["winners"] = ws
	}
}

// streamWriteTimeout bounds one write of an event stream.
const streamWriteTimeout = 30 * time.Second

// events streams the hub's notices as Server-Sent Events, one "message"
// per notice with a JSON object: kind (the stream) and the feed fields.
// ?game= keeps one game's notices.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	release, ok, global := h.caps.acquire(r)
	if !ok {
		w.Header().Set("Retry-After", "5")
		if global {
			http.Error(w, "too many live feeds open; retry later", http.StatusServiceUnavailable)
		} else {
			http.Error(w, "too many live feeds open from your address", http.StatusTooManyRequests)
		}
		return
	}
	defer release()
	select {
	case <-h.closed:
		w.Header().Set("Retry-After", "5")
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	default:
	}
	// A stream outlives any server-wide write timeout: each write gets a
	// deadline of its own instead, so a reader that stops reading is cut
	// off rather than holding the stream.
	rc := http.NewResponseController(w)
	extend := func() { _ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)) }
	extend()
	game := r.URL.Query().Get("game")
	ch, stop := h.hub.Subscribe(64)
	defer stop()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// The comment lets a client know it is subscribed before any event.
	fmt.Fprint(w, ": ready\n\n")
	fl.Flush()
	beat := time.NewTicker(h.cfg.Heartbeat)
	defer beat.Stop()
	// The engine's reachability, sent when it changes ("engine" events,
	// {"up": false} then {"up": true}): the page says the game is out of
	// reach, and reloads what it shows once it is back. A page is served
	// with the engine up, so the first news is an outage.
	look := time.NewTicker(h.cfg.EngineProbe)
	defer look.Stop()
	up := true
	for {
		select {
		case <-r.Context().Done():
			return
		case <-look.C:
			if now := h.engine.Up(r.Context()); now != up && r.Context().Err() == nil {
				up = now
				extend()
				fmt.Fprintf(w, "event: engine\ndata: {\"up\":%t}\n\n", up)
				fl.Flush()
			}
		case <-h.closed:
			// Shutting down: say so, so the client reconnects elsewhere
			// or later instead of reading a cut stream as an error.
			extend()
			fmt.Fprint(w, "event: shutdown\ndata: {}\n\n")
			fl.Flush()
			return
		case <-beat.C:
			extend()
			fmt.Fprint(w, ": beat\n\n")
			fl.Flush()
		case n := <-ch:
			if game != "" && n.Event.Fields.Value("game") != game {
				continue
			}
			m := map[string]any{"kind": n.Stream, "id": n.Event.ID.String(), "at_ms": strconv.FormatInt(n.Event.Time().UnixMilli(), 10)}
			for _, k := range feedFields {
				if v := n.Event.Fields.Value(k); v != "" {
					m[k] = v
				}
			}
			h.name(r.Context(), m, n.Event.Fields.Value("winners"))
			b, _ := json.Marshal(m)
			extend()
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", n.Stream, b)
			fl.Flush()
		}
	}
}
