package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/partition"
)

// partRow is one partition of a partitioned stream.
type partRow struct {
	Index  int
	Queue  string
	Length int64
	Last   string
}

// partGroup is one group over a partitioned stream, as the engine holds it.
type partGroup struct {
	State   partition.GroupState
	Members []partMember
	Err     string
}

type partMember struct {
	ID   string
	Held []int
	Lag  int64
}

type partitionsData struct {
	Queue, Name string
	Counts      []int
	Parts       []partRow
	Groups      []partGroup
	Err         string
}

func (d partitionsData) title() (string, string) {
	return d.Name + " · " + d.Queue + " (partitioned)", "overview"
}

// partitionsPage shows a partitioned stream of a queue on the dashboard:
// its partitions (queue, length, newest id) and each consumer group found
// on them with its live members, the partitions each holds, and each
// partition's holder, fencing token and lag.
func (h *Handler) partitionsPage(w http.ResponseWriter, r *http.Request) {
	v, ok := h.queue(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	s, err := partition.Open(ctx, h.client, v.name, r.PathValue("stream"))
	switch {
	case errors.Is(err, partition.ErrNotPartitioned) || errors.Is(err, echomq.ErrInvalidName):
		h.fail(w, r, http.StatusNotFound, fmt.Errorf("no partitioned stream %q in queue %q", r.PathValue("stream"), v.name))
		return
	case err != nil:
		h.fail(w, r, http.StatusBadGateway, err)
		return
	}
	d := partitionsData{Queue: s.Queue(), Name: s.Name(), Counts: s.Counts()}
	var groups []string
	for i, p := range s.All() {
		info, err := p.Info(ctx)
		if err != nil {
			d.Err = err.Error()
			break
		}
		row := partRow{Index: i, Queue: p.Queue(), Length: info.Length}
		if info.Last != nil {
			row.Last = info.Last.ID.String()
		}
		d.Parts = append(d.Parts, row)
		if !info.Exists {
			continue
		}
		gs, err := p.Groups(ctx)
		if err != nil {
			d.Err = err.Error()
			break
		}
		for _, g := range gs {
			if !slices.Contains(groups, g.Name) {
				groups = append(groups, g.Name)
			}
		}
	}
	slices.Sort(groups)
	for _, g := range groups {
		pg := partGroup{}
		pg.State, err = s.GroupState(ctx, g)
		if err != nil {
			pg.Err = err.Error()
		}
		lag := map[string]int64{}
		for _, p := range pg.State.Partitions {
			lag[p.Owner] += p.Lag.Lag
		}
		for _, m := range pg.State.Members {
			pg.Members = append(pg.Members, partMember{ID: m, Held: pg.State.Held(m), Lag: lag[m]})
		}
		d.Groups = append(d.Groups, pg)
	}
	h.render(w, r, http.StatusOK, "partitions", d)
}
