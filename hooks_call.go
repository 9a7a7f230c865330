package echomq

import (
	"context"
	"time"

	"github.com/echomq/echomq/internal/wire"
)

// hookSet is a client's hooks sorted by interface once, at Connect, so a
// path with no hook of its kind costs one length check.
type hookSet struct {
	append  []AppendHook
	prepare []AppendPrepareHook
	read    []ReadHook
	deliver []DeliverHook
	ack     []AckHook
	dead    []DeadLetterHook
	trim    []TrimHook
}

func newHookSet(hs []Hook) hookSet {
	return hookSet{
		append: pick[AppendHook](hs), prepare: pick[AppendPrepareHook](hs), read: pick[ReadHook](hs),
		deliver: pick[DeliverHook](hs), ack: pick[AckHook](hs), dead: pick[DeadLetterHook](hs), trim: pick[TrimHook](hs),
	}
}

// pick returns the hooks of hs that implement T, in order; nil for none.
func pick[T any](hs []Hook) []T {
	var out []T
	for _, h := range hs {
		if t, ok := h.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// callObserver returns the wire observer of the client's EngineCallHooks,
// nil when there are none (then the connection has no observer at all).
func callObserver(hs []Hook) wire.CallObserver {
	calls := pick[EngineCallHook](hs)
	if len(calls) == 0 {
		return nil
	}
	return func(cmd string, n int, d time.Duration, err error) {
		ev := EngineCall{Command: cmd, Commands: n, Duration: d, Err: err}
		for _, h := range calls {
			h.OnEngineCall(ev)
		}
	}
}

func (h *hookSet) appends() bool { return len(h.append) > 0 || len(h.prepare) > 0 }

// prepared runs the AppendPrepareHooks on records the caller's checks
// accepted; records that fail them go out unchanged, to be refused.
func (s *Stream) prepared(ctx context.Context, records []Fields, ok bool) (context.Context, []Fields) {
	hs := s.c.hooks.prepare
	if len(hs) == 0 || !ok {
		return ctx, records
	}
	p := AppendPrepare{Queue: s.queue, Stream: s.name, Records: append([]Fields(nil), records...)}
	for _, h := range hs {
		ctx = h.PrepareAppend(ctx, &p) //nolint:fatcontext // each hook wraps the context the one before returned
	}
	return ctx, p.Records
}

func (s *Stream) appended(ctx context.Context, a AppendInfo) {
	a.Queue, a.Stream, a.Duration = s.queue, s.name, time.Since(a.Start)
	for _, h := range s.c.hooks.append {
		h.OnAppend(ctx, a)
	}
}

// appendObserved is Append with the client's append hooks.
func (s *Stream) appendObserved(ctx context.Context, f Fields, opts AppendOpts) (ID, error) {
	start := time.Now()
	ok := s.err == nil && s.c.checkFields(f) == nil && opts.validate() == nil
	ctx, rs := s.prepared(ctx, []Fields{f}, ok)
	id, err := s.appendWith(ctx, rs[0], opts)
	a := AppendInfo{Records: 1, ID: id, Start: start, Err: err}
	if err != nil {
		a.Failed = 1
	}
	s.appended(ctx, a)
	return id, err
}

// appendIDObserved is AppendID with the client's append hooks.
func (s *Stream) appendIDObserved(ctx context.Context, id ID, f Fields) error {
	start := time.Now()
	ok := s.err == nil && !id.IsZero() && id.isEvent() && s.c.checkFields(f) == nil
	ctx, rs := s.prepared(ctx, []Fields{f}, ok)
	err := s.appendID(ctx, id, rs[0])
	a := AppendInfo{Records: 1, ID: id, Start: start, Err: err}
	if err != nil {
		a.Failed, a.ID = 1, ID{}
	}
	s.appended(ctx, a)
	return err
}

// appendBatchObserved is AppendBatch with the client's append hooks.
func (s *Stream) appendBatchObserved(ctx context.Context, records []Fields, opts AppendOpts) ([]ID, error) {
	start := time.Now()
	ok := s.err == nil && opts.validate() == nil
	for _, f := range records {
		ok = ok && s.c.checkFields(f) == nil
	}
	ctx, rs := s.prepared(ctx, records, ok && len(records) > 0)
	ids, err := s.appendBatchWith(ctx, rs, opts)
	a := AppendInfo{Records: len(records), IDs: ids, Batch: true, Start: start, Err: err}
	for _, id := range ids {
		if id.IsZero() {
			a.Failed++
		}
	}
	if ids == nil && err != nil {
		a.Failed = len(records)
	}
	s.appended(ctx, a)
	return ids, err
}

// readObserved is Read with the client's read hooks.
func (s *Stream) readObserved(ctx context.Context, r Range, opts *ReadOpts) ([]Event, error) {
	start := time.Now()
	evs, err := s.readRange(ctx, r, opts)
	info := ReadInfo{Queue: s.queue, Stream: s.name, Events: len(evs), Duration: time.Since(start), Err: err}
	for _, h := range s.c.hooks.read {
		h.OnRead(ctx, info)
	}
	return evs, err
}

// trimObserved is Trim with the client's trim hooks.
func (s *Stream) trimObserved(ctx context.Context, t TrimSpec) (TrimResult, error) {
	start := time.Now()
	res, err := s.trimReport(ctx, t)
	info := TrimInfo{Queue: s.queue, Stream: s.name, By: trimByCaller, Removed: res.Removed, Duration: time.Since(start), Err: err}
	for _, h := range s.c.hooks.trim {
		h.OnTrim(ctx, info)
	}
	return res, err
}
