package dashboard

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

var (
	errJobNotFound = lanes.ErrNotFound
	errWrongState  = lanes.ErrWrongState
)

// busiestLanes is how many lanes the lanes page lists, and laneScan how
// many it looks at to find them (one page of the lane index).
const (
	busiestLanes = 20
	laneScan     = lanes.MaxList
)

type lanesData struct {
	Queue   string
	Stats   lanes.Stats
	Busiest []lanes.LaneInfo
	// Partial says more lanes exist than were looked at.
	Partial bool
	Dead    []lanes.JobSummary
	Err     string
}

func (d lanesData) title() (string, string) { return "Lanes of " + d.Queue, "lanes" }

func (h *Handler) lanesQueue(w http.ResponseWriter, r *http.Request) (*lanes.Queue, bool) {
	v, ok := h.queue(w, r)
	if !ok {
		return nil, false
	}
	if v.fixed && !v.pinLanes {
		h.fail(w, r, http.StatusNotFound, badInput("queue", v.name, "its lanes are not on this dashboard"))
		return nil, false
	}
	return v.lanes, true
}

func (h *Handler) lanesPage(w http.ResponseWriter, r *http.Request) {
	lq, ok := h.lanesQueue(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	d := lanesData{Queue: lq.Name()}
	var errs []string
	var err error
	if d.Stats, err = lq.Stats(ctx); err != nil {
		errs = append(errs, err.Error())
	}
	// The index pages by cursor; a lane may show up on two pages.
	seen := map[string]bool{}
	for cursor := ""; ; {
		page, err := lq.Lanes(ctx, &lanes.LaneListParams{Cursor: cursor, Count: 100})
		if err != nil {
			errs = append(errs, err.Error())
			break
		}
		for _, l := range page.Lanes {
			if !seen[l.Lane] {
				seen[l.Lane] = true
				d.Busiest = append(d.Busiest, l)
			}
		}
		if cursor = page.Cursor; cursor == "" {
			break
		}
		if len(d.Busiest) >= laneScan {
			d.Partial = true
			break
		}
	}
	slices.SortFunc(d.Busiest, func(a, b lanes.LaneInfo) int {
		return cmp.Or(cmp.Compare(b.Depth+b.InFlight, a.Depth+a.InFlight), strings.Compare(a.Lane, b.Lane))
	})
	if len(d.Busiest) > busiestLanes {
		d.Busiest = d.Busiest[:busiestLanes]
	}
	if d.Dead, err = lq.Dead(ctx, 0, h.cfg.PageSize); err != nil {
		errs = append(errs, err.Error())
	}
	d.Err = strings.Join(errs, "; ")
	h.render(w, r, http.StatusOK, "lanes", d)
}

func (h *Handler) lanesPath(r *http.Request, q string) string {
	return h.prefix(r) + "/q/" + url.PathEscape(q) + "/lanes"
}

// lanesRetry puts a dead job (form field id) back on its lane.
func (h *Handler) lanesRetry(w http.ResponseWriter, r *http.Request) {
	lq, ok := h.lanesQueue(w, r)
	if !ok {
		return
	}
	raw := r.PostFormValue("id")
	id, err := echomq.ParseID(raw)
	if err != nil || id.Brand() != "JOB" {
		h.fail(w, r, http.StatusBadRequest, badInput("id", raw, "want a JOB id (14 characters, like JOB0Dqulb8QcyG)"))
		return
	}
	if err := lq.RetryDead(r.Context(), id); err != nil {
		h.writeFailed(w, r, "retry dead job", err)
		return
	}
	h.cfg.Logger.Info("dashboard: dead job retried", "queue", lq.Name(), "job", id, "remote", r.RemoteAddr)
	done(w, r, h.lanesPath(r, lq.Name()), "retried", id.String())
}

func (h *Handler) lanesPause(w http.ResponseWriter, r *http.Request)  { h.lanesToggle(w, r, true) }
func (h *Handler) lanesResume(w http.ResponseWriter, r *http.Request) { h.lanesToggle(w, r, false) }

// lanesToggle pauses or resumes the queue, or one lane (form field lane).
func (h *Handler) lanesToggle(w http.ResponseWriter, r *http.Request, pause bool) {
	lq, ok := h.lanesQueue(w, r)
	if !ok {
		return
	}
	_ = r.ParseForm() // the writer guard parsed it already
	lane, named := r.PostForm["lane"]
	var changed bool
	var err error
	what := "queue " + lq.Name()
	switch {
	case named && (len(lane) != 1 || lanes.ValidateLane(lane[0]) != nil):
		reason := "want one lane name: 1 to 256 bytes of UTF-8 without control characters"
		if len(lane) == 1 {
			reason = lanes.ValidateLane(lane[0]).Error()
		}
		h.fail(w, r, http.StatusBadRequest, badInput("lane", strings.Join(lane, ","), reason))
		return
	case named && pause:
		what = "lane " + lane[0]
		changed, err = lq.PauseLane(r.Context(), lane[0])
	case named:
		what = "lane " + lane[0]
		changed, err = lq.ResumeLane(r.Context(), lane[0])
	case pause:
		changed, err = lq.Pause(r.Context())
	default:
		changed, err = lq.Resume(r.Context())
	}
	verb := map[bool]string{true: "pause", false: "resume"}[pause]
	if err != nil {
		h.writeFailed(w, r, verb+" "+what, err)
		return
	}
	h.cfg.Logger.Info("dashboard: lanes "+verb, "queue", lq.Name(), "target", what, "changed", changed, "remote", r.RemoteAddr)
	code := verb + "d"
	if !changed {
		code = "unchanged"
	}
	done(w, r, h.lanesPath(r, lq.Name()), code, what)
}
