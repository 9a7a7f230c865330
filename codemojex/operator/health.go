package operator

import "net/http"

// healthPage shows the game's health: the reading /metrics exports, taken
// from the engine when the page is asked for.
func (h *Handler) healthPage(w http.ResponseWriter, r *http.Request, s *session) {
	p := &page{Title: "Health", Session: s}
	if h.cfg.Health != nil {
		snap, err := h.cfg.Health.Read(r.Context())
		if err != nil {
			h.internal(w, r, s, "read the game's health", err)
			return
		}
		p.Health = &snap
	}
	h.render(w, r, http.StatusOK, "health", p)
}
