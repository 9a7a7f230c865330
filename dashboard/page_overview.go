package dashboard

import (
	"context"
	"net/http"

	"github.com/echomq/echomq"
)

// streamRow is one stream's line of the overview and the head of its page.
type streamRow struct {
	Queue, Name string
	Info        echomq.StreamInfo
	Rate        rate
	Dead        int64
	Err         string
}

// ID names the row in the live updates.
func (s streamRow) ID() string { return s.Queue + "/" + s.Name }

type overviewQueue struct {
	Name        string
	Lanes       bool
	Projections int
	Streams     []streamRow
	Err         string
}

type overviewData struct {
	Queues  []overviewQueue
	Archive bool
}

func (overviewData) title() (string, string) { return "Streams", "overview" }
func (overviewData) live() string            { return "/events" }

func (h *Handler) overview(w http.ResponseWriter, r *http.Request) {
	d := overviewData{Archive: h.archiver != nil}
	for _, v := range h.queues {
		oq := overviewQueue{Name: v.name, Lanes: v.lanes != nil, Projections: len(v.projections)}
		streams, err := h.streamsOf(r.Context(), v)
		if err != nil {
			oq.Err = "archive store: " + err.Error()
		}
		for _, name := range streams {
			oq.Streams = append(oq.Streams, h.streamRow(r.Context(), v.name, name))
		}
		d.Queues = append(d.Queues, oq)
	}
	h.render(w, r, http.StatusOK, "overview", d)
}

// streamRow reads one stream's summary; a failure is shown in the row.
func (h *Handler) streamRow(ctx context.Context, queue, name string) streamRow {
	s := h.client.Stream(queue, name)
	row := streamRow{Queue: queue, Name: name}
	var err error
	if row.Info, err = s.Info(ctx); err == nil {
		if row.Rate, err = h.rate(ctx, s); err == nil {
			row.Dead, err = s.DeadLetters().Len(ctx)
		}
	}
	if err != nil {
		h.cfg.Logger.Warn("dashboard: stream summary", "queue", queue, "stream", name, "err", err)
		row.Err = err.Error()
	}
	return row
}
