package dashboard

import (
	"context"
	"net/http"

	"github.com/echomq/echomq"
)

type groupRow struct {
	Info echomq.GroupInfo
	// Lag is the engine's when it knows it, else counted by the dashboard
	// (entries above the last delivered id): the engine's lag is unknown
	// after the deletions and trims that retention makes.
	Lag        counted
	LagCounted bool
	Oldest     []echomq.PendingEntry
	Err        string
}

type groupsData struct {
	Row    streamRow
	Groups []groupRow
	Err    string
}

func (d groupsData) title() (string, string) { return "Groups of " + d.Row.Name, "overview" }

// oldestPending is how many of a group's oldest pending entries are shown.
const oldestPending = 10

func (h *Handler) groupsPage(w http.ResponseWriter, r *http.Request) {
	v, s, ok := h.stream(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	d := groupsData{Row: h.streamRow(ctx, v.name, s.Name())}
	infos, err := s.Groups(ctx)
	if err != nil {
		d.Err = err.Error()
	}
	for _, gi := range infos {
		g := groupRow{Info: gi}
		g.Lag, g.LagCounted, err = h.lag(ctx, s, d.Row.Info, gi)
		if err == nil {
			g.Oldest, err = s.Group(gi.Name).Pending(ctx, &echomq.PendingOpts{Count: oldestPending})
		}
		if err != nil {
			g.Err = err.Error()
		}
		d.Groups = append(d.Groups, g)
	}
	h.render(w, r, http.StatusOK, "groups", d)
}

// lag returns how many entries group g has still to read, and whether it
// was counted here rather than told by the engine.
func (h *Handler) lag(ctx context.Context, s *echomq.Stream, info echomq.StreamInfo, g echomq.GroupInfo) (counted, bool, error) {
	if g.Lag >= 0 {
		return exact(g.Lag), false, nil
	}
	if info.Last == nil || g.LastDelivered.Compare(info.Last.Entry) >= 0 {
		return exact(0), true, nil
	}
	if info.First != nil && g.LastDelivered.Compare(info.First.Entry) < 0 {
		return exact(info.Length), true, nil
	}
	c, err := countRange(ctx, s, echomq.Span(echomq.Exclusive(g.LastDelivered), echomq.Unbounded), h.cfg.CountLimit)
	return c, true, err
}
