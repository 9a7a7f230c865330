package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
)

// eventRow is one event of the stream browser.
type eventRow struct {
	ID     echomq.ID
	Entry  echomq.EntryID
	Time   time.Time
	Fields [][2]string
	// Position and Tags are a tagged event's (package dcb); 0 and nil
	// when untagged.
	Position uint64
	Tags     []string
	Archived bool
	// Seam marks the first live event after archived ones: the archive
	// seam lies just above this row. SeamAfter marks the last archived
	// event (W) when the live tail starts on the next page.
	Seam, SeamAfter bool
}

type streamData struct {
	Row          streamRow
	From, To, N  string // the form's values, echoed
	Events       []eventRow
	Next, Prev   string // query strings of the neighbour pages, "" for none
	Archive      bool
	Watermark    echomq.ID
	HasWatermark bool
	Err          string
}

func (d streamData) title() (string, string) { return d.Row.Name + " · " + d.Row.Queue, "overview" }

func (d streamData) live() string {
	return "/events?queue=" + url.QueryEscape(d.Row.Queue) + "&stream=" + url.QueryEscape(d.Row.Name)
}

// window is a parsed browser request.
type window struct {
	rng     echomq.Range
	n       int
	reverse bool // paging back: read newest first below the cursor
	paged   bool // a cursor is set
}

func (h *Handler) parseWindow(q url.Values) (window, error) {
	now := h.client.Now()
	from, err := parseBound("from", q.Get("from"), now, false)
	if err != nil {
		return window{}, err
	}
	to, err := parseBound("to", q.Get("to"), now, true)
	if err != nil {
		return window{}, err
	}
	n, err := parseCount("n", q.Get("n"), h.cfg.PageSize)
	if err != nil {
		return window{}, err
	}
	wd := window{rng: echomq.Span(from, to), n: n}
	after, hasAfter, err := parseEntry("after", q.Get("after"))
	if err != nil {
		return window{}, err
	}
	before, hasBefore, err := parseEntry("before", q.Get("before"))
	if err != nil {
		return window{}, err
	}
	switch {
	case hasAfter && hasBefore:
		return window{}, badInput("before", q.Get("before"), "after and before exclude each other")
	case hasAfter:
		wd.rng.From, wd.paged = echomq.Exclusive(after), true
	case hasBefore:
		wd.rng.To, wd.reverse, wd.paged = echomq.Exclusive(before), true, true
	}
	if err := wd.rng.Validate(); err != nil {
		return window{}, badInput("window", q.Get("from")+" … "+q.Get("to"), "the window ends before it starts")
	}
	return wd, nil
}

func (h *Handler) streamPage(w http.ResponseWriter, r *http.Request) {
	v, s, ok := h.stream(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	wd, err := h.parseWindow(q)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	d := streamData{
		Row: h.streamRow(r.Context(), v.name, s.Name()), From: q.Get("from"), To: q.Get("to"),
		N: q.Get("n"), Archive: h.cfg.Archive != nil,
	}
	if d.Archive {
		d.Watermark, d.HasWatermark, err = archive.Watermark(r.Context(), s)
		if err != nil {
			d.Err = err.Error()
		}
	}
	evs, err := h.readWindow(r.Context(), s, wd)
	if err != nil {
		h.cfg.Logger.Warn("dashboard: stream read", "stream", s.Key(), "err", err)
		d.Err = err.Error()
	}
	more := len(evs) > wd.n
	if more {
		evs = evs[:wd.n]
	}
	if wd.reverse {
		slices.Reverse(evs)
	}
	// The seam at a page's edge: the page ends at W, or starts just
	// above it.
	var wEntry echomq.EntryID
	if d.HasWatermark {
		wEntry = d.Watermark.EntryID()
	}
	for i, ev := range evs {
		row := eventRow{
			ID: ev.ID, Entry: ev.Entry, Time: ev.Entry.Time(), Archived: ev.Archived,
			Seam: i > 0 && evs[i-1].Archived && !ev.Archived ||
				i == 0 && !ev.Archived && d.HasWatermark && wd.rng.From == echomq.Exclusive(wEntry),
			SeamAfter: i == len(evs)-1 && ev.Archived && d.HasWatermark && ev.Entry == wEntry,
		}
		row.Fields, row.Position, row.Tags = pairs(ev.Fields), ev.Position, ev.Tags
		d.Events = append(d.Events, row)
	}
	page := func(key string, e echomq.EntryID) string {
		p := url.Values{}
		for _, k := range []string{"from", "to", "n"} {
			if q.Get(k) != "" {
				p.Set(k, q.Get(k))
			}
		}
		p.Set(key, e.String())
		return "?" + p.Encode()
	}
	if len(d.Events) > 0 {
		first, last := d.Events[0].Entry, d.Events[len(d.Events)-1].Entry
		if more && !wd.reverse || wd.reverse && wd.paged {
			d.Next = page("after", last)
		}
		if wd.reverse && more || !wd.reverse && wd.paged {
			d.Prev = page("before", first)
		}
	}
	h.render(w, r, http.StatusOK, "stream", d)
}

// readWindow reads n+1 events of the window (to tell whether a next page
// exists): through the archive when one is configured, so the window
// spans the seam, else from the live stream.
func (h *Handler) readWindow(ctx context.Context, s *echomq.Stream, wd window) ([]archive.Event, error) {
	opts := &echomq.ReadOpts{Count: wd.n + 1, Reverse: wd.reverse}
	if h.cfg.Archive != nil {
		return archive.NewReader(h.cfg.Archive, s).Read(ctx, wd.rng, opts)
	}
	evs, err := s.Read(ctx, wd.rng, opts)
	out := make([]archive.Event, len(evs))
	for i, ev := range evs {
		out[i] = archive.Event{Event: ev}
	}
	return out, err
}

// itoa is for the templates' page sizes.
func itoa(n int) string { return strconv.Itoa(n) }
