package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/bot"
)

// Backoff between the runs of a background part that failed.
const (
	restartMin = time.Second
	restartMax = 30 * time.Second
	// restartReset is how long a run must last for its failure to count as
	// a new one (logged again, backoff from restartMin).
	restartReset = time.Minute
)

// permanent reports whether a background part's error will not pass by
// running it again: bad configuration, or Telegram refusing the token.
func permanent(err error) bool {
	var api *bot.APIError
	return errors.Is(err, echomq.ErrInvalidArgument) || errors.As(err, &api)
}

// supervise runs a background part of serve until ctx ends. A failure
// that may pass (the engine restarting, paused or unreachable) does not
// stop serve: the part is run again with a backoff, its failure logged
// once per outage. A permanent error is returned, for serve to stop on.
func supervise(ctx context.Context, log *slog.Logger, name string, run func(context.Context) error) error {
	wait := restartMin
	failing := false
	for {
		began := time.Now()
		err := run(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil && permanent(err) {
			log.Error("codemojex: stopping: permanent failure", "part", name, "err", err)
			return err
		}
		if time.Since(began) >= restartReset {
			wait, failing = restartMin, false
		}
		if !failing {
			log.Warn("codemojex: background part failed; running it again", "part", name, "err", err)
			failing = true
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		wait = min(2*wait, restartMax)
	}
}
