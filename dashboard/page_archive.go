package dashboard

import (
	"context"
	"errors"
	"net/http"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/retention"
)

// recentSegments is how many of a stream's newest segments are listed.
const recentSegments = 10

type archiveRow struct {
	Status   archive.Status
	Segments []archive.Segment // the newest, newest first
	Policy   string            // "" without one
	// Lag is the live entries the policy hands to the archive that are not
	// archived yet.
	Lag counted
	Err string
}

type archiveData struct {
	On      bool
	Streams []archiveRow
	Err     string
}

func (archiveData) title() (string, string) { return "Archive", "archive" }

func (h *Handler) archivePage(w http.ResponseWriter, r *http.Request) {
	d := archiveData{On: h.archiver != nil}
	if !d.On {
		h.render(w, r, http.StatusOK, "archive", d)
		return
	}
	ctx := r.Context()
	for _, v := range h.queues {
		streams, err := h.streamsOf(ctx, v)
		if err != nil {
			d.Err = err.Error()
		}
		for _, name := range streams {
			d.Streams = append(d.Streams, h.archiveRow(ctx, v.name, name))
		}
	}
	h.render(w, r, http.StatusOK, "archive", d)
}

func (h *Handler) archiveRow(ctx context.Context, queue, name string) archiveRow {
	row := archiveRow{}
	var err error
	defer func() {
		if err != nil {
			row.Err = err.Error()
		}
	}()
	if row.Status, err = h.archiver.Status(ctx, queue, name); err != nil {
		return row
	}
	m, err := archive.LoadManifest(ctx, h.cfg.Archive, queue, name)
	if err != nil {
		return row
	}
	for i := len(m.Segments) - 1; i >= 0 && len(row.Segments) < recentSegments; i-- {
		row.Segments = append(row.Segments, m.Segments[i])
	}
	p, ok := h.policies[queue+"/"+name]
	if !ok {
		return row
	}
	row.Policy = p.Keep.String()
	row.Lag, err = h.archiveLag(ctx, p, row.Status)
	return row
}

// archiveLag counts the live entries that policy p no longer keeps: what
// the next cycle will fold into the archive.
func (h *Handler) archiveLag(ctx context.Context, p archive.Policy, st archive.Status) (counted, error) {
	if p.Keep.Kind() == retention.KindMaxLen {
		return exact(max(0, st.Live.Length-p.Keep.Len())), nil
	}
	horizon, _ := p.Keep.Horizon(h.client.Now())
	from := echomq.Unbounded
	if !st.Watermark.IsZero() {
		from = echomq.After(st.Watermark)
	}
	rng := echomq.Span(from, echomq.Exclusive(horizon))
	if rng.Validate() != nil {
		return exact(0), nil
	}
	return countRange(ctx, h.client.Stream(p.Queue, p.Stream), rng, h.cfg.CountLimit)
}

type verifyData struct {
	Queue, Stream string
	Result        archive.VerifyResult
}

func (d verifyData) title() (string, string) { return "Verify " + d.Queue + "/" + d.Stream, "archive" }

// archiveVerify scrubs one stream's archive; it changes nothing.
func (h *Handler) archiveVerify(w http.ResponseWriter, r *http.Request) {
	if h.archiver == nil {
		h.fail(w, r, http.StatusNotFound, errors.New("no archive store is configured"))
		return
	}
	v, s, ok := h.stream(w, r)
	if !ok {
		return
	}
	res, err := archive.Verify(r.Context(), h.cfg.Archive, v.name, s.Name())
	if err != nil {
		h.fail(w, r, http.StatusBadGateway, err)
		return
	}
	h.render(w, r, http.StatusOK, "verify", verifyData{Queue: v.name, Stream: s.Name(), Result: res})
}
