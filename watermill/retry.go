package watermill

import (
	"context"
	"errors"
	"time"

	"github.com/echomq/echomq"
)

// Backoff of the calls that ride out a short engine outage.
const (
	retryFirst = 10 * time.Millisecond
	retryMax   = 500 * time.Millisecond
)

// transient reports whether an engine failure may pass on its own: the
// root package's [echomq.ErrUnavailable] (the engine unreachable or
// restarting, loading, busy or failing over, a blocking read unblocked
// by a failover, the node lease being renewed). One definition, so the
// adapter rides out exactly what the library's own services ride out.
func transient(err error) bool { return errors.Is(err, echomq.ErrUnavailable) }

// retry calls op until it succeeds, fails for good, or ctx ends; the
// transient failures are retried with a backoff from 10ms to 500ms. When
// ctx ends it returns op's last error.
func retry(ctx context.Context, op func(ctx context.Context) error) error {
	wait := retryFirst
	for {
		err := op(ctx)
		if err == nil || !transient(err) || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
		wait = min(2*wait, retryMax)
	}
}
