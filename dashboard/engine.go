package dashboard

import (
	"context"
	"net/http"
	"time"
)

// probeTimeout bounds the engine check in front of every page: during an
// outage a page answers within it, instead of waiting out every read's
// call timeout one after another.
const probeTimeout = 2 * time.Second

// retryUnreachable is how often a page shown during an outage reloads
// itself, in seconds.
const retryUnreachable = 5

// probe asks the engine for its clock, bounded by probeTimeout.
func (h *Handler) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := h.client.EngineTime(ctx)
	return err
}

// unreachableData is the page shown instead of any other while the engine
// does not answer.
type unreachableData struct {
	Err   string
	Retry int
}

func (unreachableData) title() (string, string) { return "Engine unreachable", "" }
func (d unreachableData) retry() int            { return d.Retry }

// engineUp guards a page that reads the engine: when the engine does not
// answer the probe, the page is one notice (503, Retry-After) that says so
// and reloads itself, rather than a page of zeros beside errors.
func (h *Handler) engineUp(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h.probe(r.Context()); err != nil {
			if r.Context().Err() != nil {
				return // the browser left
			}
			h.cfg.Logger.Warn("dashboard: engine unreachable", "path", r.URL.Path, "err", err)
			w.Header().Set("Retry-After", "5")
			h.render(w, r, http.StatusServiceUnavailable, "unreachable", unreachableData{Err: err.Error(), Retry: retryUnreachable})
			return
		}
		next.ServeHTTP(w, r)
	})
}
