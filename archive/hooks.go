package archive

import (
	"context"
	"time"

	"github.com/echomq/echomq"
)

// CycleHook observes the cycles of an [Archiver]. An archiver finds its
// hooks among the client's ([echomq.Config.Hooks], with [echomq.HooksOf])
// on every cycle; the prometheus and otel modules implement it.
type CycleHook interface {
	OnArchiveCycle(ctx context.Context, a CycleInfo)
}

// CycleInfo is one archive cycle of one stream, as a [CycleHook] sees it.
type CycleInfo struct {
	Queue, Stream string
	// Folded counts the entries archived, Segments and Bytes what the
	// cycle wrote, Trimmed the live entries its trims removed.
	Folded, Trimmed int64
	Segments        int
	Bytes           int64
	// Watermark is W after the cycle.
	Watermark echomq.ID
	Start     time.Time
	Duration  time.Duration
	Err       error
}

// cycled reports a cycle to the client's archive cycle hooks.
func (a *Archiver) cycled(ctx context.Context, start time.Time, res CycleResult, err error) {
	hs := echomq.HooksOf[CycleHook](a.client)
	if len(hs) == 0 {
		return
	}
	info := CycleInfo{
		Queue: res.Policy.Queue, Stream: res.Policy.Stream,
		Folded: res.Folded, Trimmed: res.Trimmed, Segments: len(res.Segments),
		Watermark: res.Watermark, Start: start, Duration: time.Since(start), Err: err,
	}
	for _, s := range res.Segments {
		info.Bytes += s.Bytes
	}
	for _, h := range hs {
		h.OnArchiveCycle(ctx, info)
	}
}

// trimmed reports the archiver's own trim to the client's trim hooks.
func (a *Archiver) trimmed(ctx context.Context, s *echomq.Stream, n int64, d time.Duration, err error) {
	hs := echomq.HooksOf[echomq.TrimHook](a.client)
	if len(hs) == 0 {
		return
	}
	info := echomq.TrimInfo{Queue: s.Queue(), Stream: s.Name(), By: "archive", Removed: n, Duration: d, Err: err}
	for _, h := range hs {
		h.OnTrim(ctx, info)
	}
}
