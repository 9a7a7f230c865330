package cli

import (
	"context"
	"log/slog"
)

// dropInjected drops the consumer's log records about the failures consume
// injected itself: the printed rows already show them.
type dropInjected struct {
	h   slog.Handler
	msg string
}

func (d *dropInjected) Enabled(ctx context.Context, l slog.Level) bool { return d.h.Enabled(ctx, l) }

func (d *dropInjected) Handle(ctx context.Context, r slog.Record) error {
	injected := false
	r.Attrs(func(at slog.Attr) bool {
		injected = at.Value.Resolve().String() == d.msg
		return !injected
	})
	if injected {
		return nil
	}
	return d.h.Handle(ctx, r)
}

func (d *dropInjected) WithAttrs(as []slog.Attr) slog.Handler {
	return &dropInjected{h: d.h.WithAttrs(as), msg: d.msg}
}

func (d *dropInjected) WithGroup(name string) slog.Handler {
	return &dropInjected{h: d.h.WithGroup(name), msg: d.msg}
}
