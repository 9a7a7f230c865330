package emqotel

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/echomq/echomq"
)

// DefaultHandoff is how long an append's send span waits, at most, before
// it is handed to the SDK ([Config.Handoff]).
const DefaultHandoff = 2 * time.Millisecond

// maxWaiting is how many send spans may wait for a handoff: past it the
// appending goroutine hands them over itself, so a handoff that falls
// behind slows appends down rather than growing without bound or dropping
// spans.
var maxWaiting = 4096

// waiting is an append's send span as recorded on the append path: its
// instants, outcome and parent, or the span itself when it had to be started
// there (its trace context was injected into the entry).
type waiting struct {
	sd      *send
	parent  trace.SpanContext // the caller's span; used when span is nil
	span    trace.Span        // started on the append path, only its end waits
	start   time.Time
	end     time.Time
	id      echomq.ID
	batch   bool
	records int
	err     error
}

// handoff collects send spans on the append path and hands them to the SDK
// in batches, from a timer's goroutine, within the handoff delay: the
// SDK's span start, sampling and end, and the wake-up of its batch span
// processor, then cost the appender nothing and happen once per batch
// instead of once per append. Handoffs are serialised by run, so Flush
// returns only when every span recorded before it has ended.
type handoff struct {
	t     *Tracing
	delay time.Duration

	run sync.Mutex // held for a whole handoff

	mu    sync.Mutex
	buf   []waiting
	spare []waiting // the last handed-off batch's storage, for reuse
	armed bool
	timer *time.Timer
}

// add records w and makes sure a handoff follows within the delay.
func (h *handoff) add(w waiting) {
	h.mu.Lock()
	h.buf = append(h.buf, w)
	n := len(h.buf)
	if !h.armed {
		h.armed = true
		if h.timer == nil {
			h.timer = time.AfterFunc(h.delay, h.flush)
		} else {
			h.timer.Reset(h.delay)
		}
	}
	h.mu.Unlock()
	if n >= maxWaiting {
		h.flush()
	}
}

// flush hands every waiting span to the SDK, after any handoff in
// progress has finished.
func (h *handoff) flush() {
	h.run.Lock()
	defer h.run.Unlock()
	for {
		h.mu.Lock()
		batch := h.buf
		h.buf, h.spare, h.armed = h.spare, nil, false
		h.mu.Unlock()
		if len(batch) == 0 {
			return
		}
		for i := range batch {
			h.t.end(&batch[i])
			batch[i] = waiting{}
		}
		h.mu.Lock()
		if h.spare == nil {
			h.spare = batch[:0]
		}
		h.mu.Unlock()
	}
}

// end starts (unless it was started on the append path) and ends the send
// span of w with the instants the append recorded.
func (t *Tracing) end(w *waiting) {
	span := w.span
	if span == nil {
		ctx := context.Background()
		if w.parent.IsValid() {
			ctx = trace.ContextWithSpanContext(ctx, w.parent)
		}
		_, span = t.tracer.Start(ctx, w.sd.name, append([]trace.SpanStartOption{trace.WithTimestamp(w.start)}, w.sd.opts...)...)
	}
	settle(span, w.batch, w.records, w.id, w.err)
	span.End(trace.WithTimestamp(w.end))
}

// settle sets what the append's outcome tells on its send span.
func settle(span trace.Span, batch bool, records int, id echomq.ID, err error) {
	switch {
	case !span.IsRecording(): // not sampled: spend nothing on attributes
	case batch:
		span.SetAttributes(AttrBatchCount.Int(records))
	case !id.IsZero():
		span.SetAttributes(AttrMessageID.String(id.String()))
	}
	failed(span, err)
}

// Flush hands every send span recorded so far to the TracerProvider's
// span processors and returns when they have all ended. Call it before
// shutting the TracerProvider down (with defer, after the deferred
// Shutdown: deferred calls run last first), or the spans of the last few
// milliseconds of appends are lost. Without a handoff
// ([Config.Handoff] < 0) it does nothing.
func (t *Tracing) Flush() {
	if t.handoff != nil {
		t.handoff.flush()
	}
}
