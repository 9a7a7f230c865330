package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// liveStream is one stream's numbers in a live update.
type liveStream struct {
	ID        string  `json:"id"`
	Length    int64   `json:"length"`
	PerMinute string  `json:"per_minute"`
	Buckets   []int64 `json:"buckets"`
	Last      string  `json:"last"`
	Dead      int64   `json:"dead"`
	Err       string  `json:"err,omitempty"`
}

// liveUpdate is the data of one "stats" event. Unreachable, when set,
// says the engine did not answer (and Streams is empty).
type liveUpdate struct {
	At          string       `json:"at"`
	Streams     []liveStream `json:"streams"`
	Unreachable string       `json:"unreachable,omitempty"`
}

// writeTimeout bounds one write of a live update stream, so a browser that
// stops reading is cut off instead of holding the stream.
const writeTimeout = 30 * time.Second

// events streams live updates as Server-Sent Events: a "stats" event
// every Refresh with every stream's length, rate and last event (or only
// those of ?queue=&stream=), and "shutdown" when the handler closes.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	select {
	case <-h.closed:
		w.Header().Set("Retry-After", "5")
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	default:
	}
	if h.live.Add(1) > int64(h.cfg.MaxLive) {
		h.live.Add(-1)
		w.Header().Set("Retry-After", "10")
		http.Error(w, "too many live update streams open; retry later", http.StatusServiceUnavailable)
		return
	}
	defer h.live.Add(-1)
	type target struct{ queue, stream string }
	var targets []target
	found := false // the streams were listed without an error
	q, s := r.URL.Query().Get("queue"), r.URL.Query().Get("stream")
	find := func() {
		targets, found = targets[:0], true
		for _, v := range h.queues {
			if q != "" && v.name != q {
				continue
			}
			streams, err := h.streamsOf(r.Context(), v) // a failure shows on the page
			found = found && err == nil
			for _, name := range streams {
				if s == "" || name == s {
					targets = append(targets, target{v.name, name})
				}
			}
		}
	}
	rc := http.NewResponseController(w)
	extend := func() { _ = rc.SetWriteDeadline(time.Now().Add(writeTimeout)) }
	extend()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: %d\n: ready\n\n", (5 * time.Second).Milliseconds())
	fl.Flush()
	tick := time.NewTicker(h.cfg.Refresh)
	defer tick.Stop()
	for {
		u := liveUpdate{At: h.client.Now().UTC().Format(time.RFC3339)}
		if err := h.probe(r.Context()); err != nil {
			u.Unreachable = "The dashboard cannot reach the engine (" + err.Error() + "); the numbers on this page are from before. It keeps trying."
		} else if !found {
			find()
		}
		for _, t := range targets {
			if u.Unreachable != "" {
				break
			}
			row := h.liveRow(r.Context(), t.queue, t.stream)
			ls := liveStream{ID: row.ID(), Length: row.Info.Length, PerMinute: row.Rate.PerMinute().String(),
				Buckets: row.Rate.Buckets[:], Last: "—", Dead: row.Dead, Err: row.Err}
			if row.Info.Last != nil {
				ls.Last = row.Info.Last.Time().UTC().Format("2006-01-02 15:04:05.000Z")
			}
			u.Streams = append(u.Streams, ls)
		}
		b, _ := json.Marshal(u) // strings and numbers only: cannot fail
		extend()
		if _, err := fmt.Fprintf(w, "event: stats\ndata: %s\n\n", b); err != nil {
			return
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-h.closed:
			extend()
			fmt.Fprint(w, "event: shutdown\ndata: {}\n\n")
			fl.Flush()
			return
		case <-tick.C:
		}
	}
}
