package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/bot"
)

// A background part that fails with a passing error is run again with a
// growing backoff, its failure logged once; a permanent one stops it, said
// in the log; the end of ctx ends it quietly.
func TestSupervise(t *testing.T) {
	t.Parallel()
	transient := fmt.Errorf("follow: %w", echomq.ErrUnavailable)
	refused := &bot.APIError{Method: "getMe", Status: 401}
	for _, tc := range []struct {
		name     string
		errs     []error // what the runs return, in order; after them the run waits for ctx
		stopped  error   // the error supervise stops with (nil: it runs until ctx ends)
		wantRuns int
		wantLogs int
	}{
		{"transient failures are run again", []error{transient, transient, transient}, nil, 4, 1},
		{"an unknown failure is run again", []error{errors.New("boom")}, nil, 2, 1},
		{"a nil return while running is run again", []error{nil}, nil, 2, 1},
		{"bad configuration stops", []error{&echomq.ArgumentError{Name: "sweep interval", Reason: "must be positive"}}, echomq.ErrInvalidArgument, 1, 1},
		{"a refused token stops", []error{transient, refused}, refused, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				logs := &lockedBuffer{}
				runs := 0
				var starts []time.Time
				done := make(chan error, 1)
				go func() {
					done <- supervise(ctx, slog.New(slog.NewTextHandler(logs, nil)), "part", func(ctx context.Context) error {
						starts = append(starts, time.Now())
						runs++
						if runs <= len(tc.errs) {
							return tc.errs[runs-1]
						}
						<-ctx.Done()
						return nil
					})
				}()
				time.Sleep(10 * time.Minute) // sleep: the bubble's clock: every backoff passes
				synctest.Wait()
				require.Equal(t, tc.wantRuns, runs)
				if tc.stopped != nil {
					require.ErrorIs(t, <-done, tc.stopped)
				} else {
					cancel()
					require.NoError(t, <-done)
				}
				for i := 2; i < len(starts); i++ {
					require.Greater(t, starts[i].Sub(starts[i-1]), starts[i-1].Sub(starts[i-2]), "the backoff grows")
				}
				require.Equal(t, tc.wantLogs, strings.Count(logs.String(), "\n"), logs.String())
			})
		})
	}
}
