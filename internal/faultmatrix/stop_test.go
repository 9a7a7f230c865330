package faultmatrix

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

// TestStopDuringOutage stops every component while its engine is paused
// (a hung engine answers nothing): each stop returns within the component's
// grace plus the call bound, and the run ends on its context, not on an
// error.
func TestStopDuringOutage(t *testing.T) {
	t.Parallel()
	for _, comp := range selected() {
		t.Run(slug(comp.name), func(t *testing.T) {
			t.Parallel()
			c := newCell(t, comp)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stop := comp.start(c, ctx)
			pctx, stopProducing := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				if comp.produce != nil {
					comp.produce(c, pctx)
				} else {
					c.produce(pctx, "ev")
				}
			}()
			require.Eventually(t, func() bool { return len(c.acked.names()) >= 5 }, warmTimeout, 50*time.Millisecond)
			paused := c.proxy.Counts()
			require.NoError(t, c.srv.Pause())
			echomqtest.WaitFor(t, 30*time.Second, "a call in flight against the hung engine", func() bool {
				return c.proxy.Counts().Chunks > paused.Chunks
			})
			c.stopping.Store(true)
			stopProducing()
			start := time.Now()
			cancel()
			stop()
			took := time.Since(start)
			require.NoError(t, c.srv.Resume())
			echomqtest.Recv(t, done, 30*time.Second, "the producer's append in flight, bounded by the call bound")
			// Grace of the slowest stopper (a settle or ack in flight, then
			// the final snapshot or release) plus the call bound.
			bound := 2*callTimeout + 10*time.Second
			require.Less(t, took, bound, "%s stopped in %v during the outage", comp.name, took)
			require.Zero(t, c.exits.Load())
			t.Logf("%s stopped %v after its context ended, the engine hung", comp.name, took.Round(time.Millisecond))
		})
	}
}
