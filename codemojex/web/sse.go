package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// feedFields are the event fields the live feed passes on; the rest (guess
// and job ids, keyboards, commitments) stay server-side.
var feedFields = []string{"game", "room", "player", "name", "attempt", "points", "pct", "best", "sealed", "reason", "prize", "paid", "players", "guesses"}

// events streams the hub's notices as Server-Sent Events, one "message"
// per notice with a JSON object: kind (the stream) and the feed fields.
// ?game= keeps one game's notices.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
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
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.closed:
			return
		case <-beat.C:
			fmt.Fprint(w, ": beat\n\n")
			fl.Flush()
		case n := <-ch:
			if game != "" && n.Event.Fields.Value("game") != game {
				continue
			}
			m := map[string]string{"kind": n.Stream, "id": n.Event.ID.String()}
			for _, k := range feedFields {
				if v := n.Event.Fields.Value(k); v != "" {
					m[k] = v
				}
			}
			b, _ := json.Marshal(m)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", n.Stream, b)
			fl.Flush()
		}
	}
}
