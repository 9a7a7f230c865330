package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/webkit"
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

// events streams the hub's notices as Server-Sent Events, one event per
// notice, named after its stream, with a JSON object: kind (the stream),
// id, at_ms and the feed fields; the event's id is the notice's. ?game=
// keeps one game's notices. A client that reconnects is not replayed what
// it missed: the page reloads what it shows instead.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	release, ok, global := h.caps.Acquire(r)
	if !ok {
		if global {
			webkit.Refuse(w, http.StatusServiceUnavailable, 5*time.Second, "too many live feeds open; retry later")
		} else {
			webkit.Refuse(w, http.StatusTooManyRequests, 5*time.Second, "too many live feeds open from your address")
		}
		return
	}
	defer release()
	select {
	case <-h.closed:
		webkit.Refuse(w, http.StatusServiceUnavailable, 5*time.Second, "shutting down")
		return
	default:
	}
	game := r.URL.Query().Get("game")
	ch, stop := h.hub.Subscribe(64)
	defer stop()
	s, err := webkit.Open(w, r, &webkit.StreamConfig{KeepAlive: h.cfg.Heartbeat})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	// The engine's reachability, sent when it changes ("engine" events,
	// {"up": false} then {"up": true}): the page says the game is out of
	// reach, and reloads what it shows once it is back. A page is served
	// with the engine up, so the first news is an outage.
	up := true
	look := func(ctx context.Context, s *webkit.Stream) error {
		now := h.engine.Up(ctx)
		if now == up || ctx.Err() != nil {
			return nil
		}
		up = now
		return s.Event("engine", "", []byte(`{"up":`+strconv.FormatBool(up)+`}`))
	}
	notice := func(ctx context.Context, s *webkit.Stream, n views.Notice) error {
		if game != "" && n.Event.Fields.Value("game") != game {
			return nil
		}
		m := map[string]any{"kind": n.Stream, "id": n.Event.ID.String(), "at_ms": strconv.FormatInt(n.Event.Time().UnixMilli(), 10)}
		for _, k := range feedFields {
			if v := n.Event.Fields.Value(k); v != "" {
				m[k] = v
			}
		}
		h.name(ctx, m, n.Event.Fields.Value("winners"))
		b, _ := json.Marshal(m)
		return s.Event(n.Stream, n.Event.ID.String(), b)
	}
	_ = webkit.Serve(r.Context(), s, webkit.Loop[views.Notice]{Stop: h.closed, In: ch, On: notice, Every: h.cfg.EngineProbe, Tick: look})
}
