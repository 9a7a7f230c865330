package dashboard

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/projection"
)

type positionRow struct {
	Stream string // the stream's name in the queue, or its key
	Last   echomq.EntryID
	Top    *echomq.Event
	// Lag is the events above the checkpoint; Behind the time between the
	// last folded event and the stream's newest.
	Lag    counted
	Behind time.Duration
	Err    string
}

type projectionRow struct {
	Queue, Name string
	Info        projection.SnapshotInfo
	Saved       bool
	Positions   []positionRow
	Err         string
}

type projectionsData struct{ Projections []projectionRow }

func (projectionsData) title() (string, string) { return "Projections", "projections" }

func (h *Handler) projectionsPage(w http.ResponseWriter, r *http.Request) {
	var d projectionsData
	for _, v := range h.queues {
		for _, name := range v.projections {
			d.Projections = append(d.Projections, h.projectionRow(r.Context(), v.name, name))
		}
	}
	h.render(w, r, http.StatusOK, "projections", d)
}

// streamOfKey returns the handle of the stream with key in one of the
// dashboard's queues (a checkpoint names its streams by key), or nil.
func (h *Handler) streamOfKey(key string) *echomq.Stream {
	for _, v := range h.queues {
		prefix := strings.TrimSuffix(h.client.Stream(v.name, "x").Key(), "x")
		if name, ok := strings.CutPrefix(key, prefix); ok {
			if s := h.client.Stream(v.name, name); s.Err() == nil {
				return s
			}
		}
	}
	return nil
}

func (h *Handler) projectionRow(ctx context.Context, queue, name string) projectionRow {
	row := projectionRow{Queue: queue, Name: name}
	info, ok, err := projection.EngineStore(h.client, queue, name).Info(ctx)
	if err != nil {
		row.Err = err.Error()
		return row
	}
	row.Info, row.Saved = info, ok
	for _, p := range info.Checkpoint {
		pr := positionRow{Stream: p.Stream, Last: p.Last}
		s := h.streamOfKey(p.Stream)
		if s == nil {
			pr.Err = "a stream of a queue not on this dashboard"
			row.Positions = append(row.Positions, pr)
			continue
		}
		if s.Queue() == queue {
			pr.Stream = s.Name()
		} else {
			pr.Stream = s.Queue() + "/" + s.Name()
		}
		si, err := s.Info(ctx)
		if err == nil {
			pr.Top = si.Last
			switch {
			case si.Last == nil || p.Last.Compare(si.Last.Entry) >= 0:
				pr.Lag = exact(0)
			case si.First != nil && p.Last.Compare(si.First.Entry) < 0:
				pr.Lag = exact(si.Length)
			default:
				pr.Lag, err = countRange(ctx, s, echomq.Span(echomq.Exclusive(p.Last), echomq.Unbounded), h.cfg.CountLimit)
			}
			if si.Last != nil && p.Last != (echomq.EntryID{}) {
				pr.Behind = max(0, si.Last.Entry.Time().Sub(p.Last.Time()))
			}
		}
		if err != nil {
			pr.Err = err.Error()
		}
		row.Positions = append(row.Positions, pr)
	}
	return row
}
