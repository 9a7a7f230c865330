package web

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/echomq/echomq/codemojex"
)

// probe tells whether the engine answers, asking it at most once per
// interval however many event streams want to know.
type probe struct {
	e     *codemojex.Engine
	every time.Duration

	mu sync.Mutex
	at time.Time
	up bool
}

func newProbe(e *codemojex.Engine, every time.Duration) *probe {
	return &probe{e: e, every: every, up: true}
}

// Up reports whether the engine answered its clock's read within the
// interval; a reading younger than the interval is answered as it was.
func (p *probe) Up(ctx context.Context) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.at.IsZero() && time.Since(p.at) < p.every {
		return p.up
	}
	ctx, cancel := context.WithTimeout(ctx, p.every)
	defer cancel()
	_, err := p.e.Client().EngineTime(ctx)
	if ctx.Err() != nil && err != nil && !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		// The asking stream ended: no reading.
		return p.up
	}
	p.up, p.at = err == nil, time.Now()
	return p.up
}
