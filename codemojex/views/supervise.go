package views

import (
	"context"
	"errors"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/projection"
)

// Backoff bounds between the attempts to bring a failed view back.
const (
	retryMin = 100 * time.Millisecond
	retryMax = 5 * time.Second
)

// keep runs one view until ctx ends. A view whose run fails (the engine
// restarting, paused or out of reach, a snapshot that could not be saved)
// keeps its state and checkpoint; keep logs the failure once, catches the
// view up again with a backoff until the engine answers, logs the recovery
// once and runs it again from where it stopped. Only a second run of the
// same view ([projection.ErrRunning]) ends it, with that error.
func (v *Views) keep(ctx context.Context, name string, l live) error {
	for {
		err := l.Run(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, projection.ErrRunning) {
			return err
		}
		down := time.Now()
		// A save cut off by the run's own stop (a follow that lost the
		// engine stops the run) comes back as context.Canceled: the outage
		// too.
		if errors.Is(err, echomq.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			v.log.Warn("codemojex: view lost the engine; trying it again", "view", name, "err", err)
		} else {
			// Not known to pass by itself (a snapshot the codec refuses, an
			// engine answering with an error; a call that ran out of its
			// own time is counted with the engine out of reach): logged as
			// an error, and still
			// tried again with the backoff, so the site keeps serving the
			// rest while an operator looks.
			v.log.Error("codemojex: view failed; trying it again", "view", name, "err", err)
		}
		if !v.recover(ctx, l) {
			return nil
		}
		v.log.Info("codemojex: view recovered", "view", name, "after", time.Since(down).Round(time.Millisecond))
	}
}

// recover catches l up, backing off from retryMin to retryMax between
// attempts, until it succeeds (true) or ctx ends (false).
func (v *Views) recover(ctx context.Context, l live) bool {
	wait := retryMin
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		if _, err := l.CatchUp(ctx); err == nil {
			return true
		} else if ctx.Err() != nil {
			return false
		}
		wait = min(2*wait, retryMax)
		t.Reset(wait)
	}
}
