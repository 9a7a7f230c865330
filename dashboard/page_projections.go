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

func (h *Handler) projectionRow(ctx context.Context, queue, name string) projectionRow {
	row := projectionRow{Queue: queue, Name: name}
	info, ok, err := projection.EngineStore(h.client, queue, name).Info(ctx)
	if err != nil {
		row.Err = err.Error()
		return row
	}
	row.Info, row.Saved = info, ok
	// A checkpoint names streams by key; those of this queue are read
	// back through their handles.
	prefix := strings.TrimSuffix(h.client.Stream(queue, "x").Key(), "x")
	for _, p := range info.Checkpoint {
		pr := positionRow{Stream: p.Stream, Last: p.Last}
		sname, mine := strings.CutPrefix(p.Stream, prefix)
		s := h.client.Stream(queue, sname)
		if !mine || s.Err() != nil {
			pr.Err = "a stream of another queue"
			row.Positions = append(row.Positions, pr)
			continue
		}
		pr.Stream = sname
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
