package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/echomq/echomq/webkit"
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

// events streams live updates as Server-Sent Events: a "stats" event
// every Refresh with every stream's length, rate and last event (or only
// those of ?queue=&stream=), and "shutdown" when the handler closes.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	select {
	case <-h.closed:
		webkit.Refuse(w, http.StatusServiceUnavailable, 5*time.Second, "shutting down")
		return
	default:
	}
	release, ok, _ := h.live.Acquire(r)
	if !ok {
		webkit.Refuse(w, http.StatusServiceUnavailable, 10*time.Second, "too many live update streams open; retry later")
		return
	}
	defer release()
	s, err := webkit.Open(w, r, &webkit.StreamConfig{Retry: 5 * time.Second, KeepAlive: 15 * time.Second})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f := &statsFeed{h: h, queue: r.URL.Query().Get("queue"), stream: r.URL.Query().Get("stream")}
	if f.send(r.Context(), s) != nil {
		return
	}
	_ = webkit.Serve(r.Context(), s, webkit.Loop[struct{}]{Stop: h.closed, Every: h.cfg.Refresh, Tick: f.send})
}

// statsFeed is one live update stream's state: the streams it reports on,
// found again after a failed listing.
type statsFeed struct {
	h             *Handler
	queue, stream string // the filter: "" is any
	targets       []statsTarget
	found         bool // the streams were listed without an error
}

type statsTarget struct{ queue, stream string }

func (f *statsFeed) find(ctx context.Context) {
	f.targets, f.found = f.targets[:0], true
	for _, v := range f.h.queues {
		if f.queue != "" && v.name != f.queue {
			continue
		}
		streams, err := f.h.streamsOf(ctx, v) // a failure shows on the page
		f.found = f.found && err == nil
		for _, name := range streams {
			if f.stream == "" || name == f.stream {
				f.targets = append(f.targets, statsTarget{v.name, name})
			}
		}
	}
}

// send writes one "stats" event: the numbers now, or that the engine does
// not answer.
func (f *statsFeed) send(ctx context.Context, s *webkit.Stream) error {
	h := f.h
	u := liveUpdate{At: h.client.Now().UTC().Format(time.RFC3339)}
	if err := h.probe(ctx); err != nil {
		u.Unreachable = "The dashboard cannot reach the engine (" + err.Error() + "); the numbers on this page are from before. It keeps trying."
	} else if !f.found {
		f.find(ctx)
	}
	for _, t := range f.targets {
		if u.Unreachable != "" {
			break
		}
		row := h.liveRow(ctx, t.queue, t.stream)
		ls := liveStream{
			ID: row.ID(), Length: row.Info.Length, PerMinute: row.Rate.PerMinute().String(),
			Buckets: row.Rate.Buckets[:], Last: "—", Dead: row.Dead, Err: row.Err,
		}
		if row.Info.Last != nil {
			ls.Last = row.Info.Last.Time().UTC().Format("2006-01-02 15:04:05.000Z")
		}
		u.Streams = append(u.Streams, ls)
	}
	b, _ := json.Marshal(u) // strings and numbers only: cannot fail
	return s.Event("stats", "", b)
}
