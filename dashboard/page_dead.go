package dashboard

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/echomq/echomq"
)

type deadData struct {
	Row     streamRow
	Letters []echomq.DeadLetter
	Next    string // query of the older page, "" for none
	Err     string
}

func (d deadData) title() (string, string) { return "Dead letters of " + d.Row.Name, "overview" }

func (h *Handler) deadPage(w http.ResponseWriter, r *http.Request) {
	v, s, ok := h.stream(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	n, err := parseCount("n", q.Get("n"), h.cfg.PageSize)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	before, hasBefore, err := parseEntry("before", q.Get("before"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	rng := echomq.All
	if hasBefore {
		rng = echomq.Span(echomq.Unbounded, echomq.Exclusive(before))
	}
	d := deadData{Row: h.streamRow(r.Context(), v.name, s.Name())}
	letters, err := s.DeadLetters().List(r.Context(), rng, &echomq.ReadOpts{Count: n + 1, Reverse: true})
	if err != nil {
		d.Err = err.Error()
	}
	if len(letters) > n {
		letters = letters[:n]
		p := url.Values{"before": {letters[n-1].Entry.String()}}
		if q.Get("n") != "" {
			p.Set("n", q.Get("n"))
		}
		d.Next = "?" + p.Encode()
	}
	d.Letters = letters
	h.render(w, r, http.StatusOK, "dead", d)
}

type deadLetterData struct {
	Row    streamRow
	Letter echomq.DeadLetter
}

func (d deadLetterData) title() (string, string) {
	return "Dead letter " + d.Letter.ID.String(), "overview"
}

func (h *Handler) deadLetterPage(w http.ResponseWriter, r *http.Request) {
	v, s, ok := h.stream(w, r)
	if !ok {
		return
	}
	id, err := parseEventID("id", r.PathValue("id"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	dl, err := s.DeadLetters().Get(r.Context(), id)
	switch {
	case errors.Is(err, echomq.ErrDeadLetterNotFound):
		h.fail(w, r, http.StatusNotFound, err)
		return
	case err != nil:
		h.fail(w, r, http.StatusBadGateway, err)
		return
	}
	h.render(w, r, http.StatusOK, "deadletter", deadLetterData{Row: streamRow{Queue: v.name, Name: s.Name()}, Letter: dl})
}

// maxReplayAll bounds the dead letters one "Replay all" replays (oldest
// first); the page says how many are left.
const maxReplayAll = 1000

// deadReplay appends one dead letter back to its stream (form field id),
// or with all=yes the oldest maxReplayAll of them.
func (h *Handler) deadReplay(w http.ResponseWriter, r *http.Request) {
	v, s, ok := h.stream(w, r)
	if !ok {
		return
	}
	if all := r.PostFormValue("all"); all != "" || r.PostForm.Has("all") {
		if all != "yes" || r.PostForm.Has("id") {
			h.fail(w, r, http.StatusBadRequest, badInput("all", all, `want "yes", without id`))
			return
		}
		h.deadReplayAll(w, r, v, s)
		return
	}
	id, err := parseEventID("id", r.PostFormValue("id"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	nid, err := s.DeadLetters().Replay(r.Context(), id)
	if err != nil {
		h.writeFailed(w, r, "replay dead letter", err)
		return
	}
	h.cfg.Logger.Info("dashboard: dead letter replayed", "stream", s.Key(), "dead", id, "event", nid, "remote", r.RemoteAddr)
	done(w, r, h.prefix(r)+"/q/"+url.PathEscape(v.name)+"/streams/"+url.PathEscape(s.Name())+"/dead", "replayed", id.String()+" as "+nid.String())
}

// deadReplayAll replays the oldest maxReplayAll dead letters, one atomic
// step each (a letter replayed meanwhile by someone else is skipped).
func (h *Handler) deadReplayAll(w http.ResponseWriter, r *http.Request, v *queueView, s *echomq.Stream) {
	dl := s.DeadLetters()
	letters, err := dl.List(r.Context(), echomq.All, &echomq.ReadOpts{Count: maxReplayAll})
	if err != nil {
		h.writeFailed(w, r, "replay dead letters", err)
		return
	}
	n := 0
	for _, l := range letters {
		if _, err := dl.Replay(r.Context(), l.ID); err != nil && !errors.Is(err, echomq.ErrDeadLetterNotFound) {
			h.writeFailed(w, r, "replay dead letters (after "+itoa(n)+" replayed)", err)
			return
		}
		n++
	}
	h.cfg.Logger.Info("dashboard: dead letters replayed", "stream", s.Key(), "count", n, "remote", r.RemoteAddr)
	done(w, r, h.prefix(r)+"/q/"+url.PathEscape(v.name)+"/streams/"+url.PathEscape(s.Name())+"/dead", "allreplayed", itoa(n))
}

// deadPurge deletes dead letters: the form's id fields, or every one with
// all=yes.
func (h *Handler) deadPurge(w http.ResponseWriter, r *http.Request) {
	v, s, ok := h.stream(w, r)
	if !ok {
		return
	}
	_ = r.ParseForm() // the writer guard parsed it already
	all, raw := r.PostForm.Get("all"), r.PostForm["id"]
	var n int64
	var err error
	switch {
	case all != "" && all != "yes":
		h.fail(w, r, http.StatusBadRequest, badInput("all", all, `want "yes" or nothing`))
		return
	case all == "yes" && len(raw) > 0:
		h.fail(w, r, http.StatusBadRequest, badInput("all", all, "all and id exclude each other"))
		return
	case all == "yes":
		n, err = s.DeadLetters().PurgeAll(r.Context())
	default:
		if len(raw) == 0 {
			h.fail(w, r, http.StatusBadRequest, badInput("id", "", "name at least one dead letter, or all=yes"))
			return
		}
		ids := make([]echomq.ID, len(raw))
		for i, s := range raw {
			if ids[i], err = parseEventID("id", s); err != nil {
				h.fail(w, r, http.StatusBadRequest, err)
				return
			}
		}
		n, err = s.DeadLetters().Purge(r.Context(), ids...)
	}
	if err != nil {
		h.writeFailed(w, r, "purge dead letters", err)
		return
	}
	h.cfg.Logger.Info("dashboard: dead letters purged", "stream", s.Key(), "count", n, "remote", r.RemoteAddr)
	done(w, r, h.prefix(r)+"/q/"+url.PathEscape(v.name)+"/streams/"+url.PathEscape(s.Name())+"/dead", "purged", itoa(int(n)))
}

// writeFailed answers a write the library refused or could not do: 404
// for what is gone, 409 for a wrong state, 400 for bad input, else 502.
func (h *Handler) writeFailed(w http.ResponseWriter, r *http.Request, what string, err error) {
	h.cfg.Logger.Warn("dashboard: write failed", "op", what, "path", r.URL.Path, "err", err)
	status := http.StatusBadGateway
	var ke *echomq.KindError
	var ie *echomq.IDError
	var ne *echomq.NameError
	switch {
	case errors.Is(err, echomq.ErrDeadLetterNotFound), errors.Is(err, errJobNotFound):
		status = http.StatusNotFound
	case errors.Is(err, errWrongState):
		status = http.StatusConflict
	case errors.As(err, &ke), errors.As(err, &ie), errors.As(err, &ne), errors.Is(err, echomq.ErrInvalidArgument):
		status = http.StatusBadRequest
	}
	h.fail(w, r, status, errors.New(what+": "+err.Error()))
}
