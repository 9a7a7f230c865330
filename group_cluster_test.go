package echomq_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// TestGroupCluster: on a 3-master Redis Cluster, consumers of queues on
// different slots deliver, retry, dead-letter (a two-key script: stream and
// dead letters share the queue's slot), replay and remove a consumer.
func TestGroupCluster(t *testing.T) {
	t.Parallel()
	cl := echomqtest.StartCluster(t)
	c := connect(t, echomq.Config{URL: cl.URL()})
	base := echomqtest.Queue(t)
	for i := range 3 {
		q := fmt.Sprintf("%s.%d", base, i)
		e := &groupEnv{c: c, queue: q, stream: c.Stream(q, "events"), srv: cl.URL()}
		ids := e.append(t, 5)
		rec := &deliveryLog{fail: func(d echomq.Delivery) error {
			if d.ID == ids[2] {
				return errors.New("poison")
			}
			return nil
		}}
		cfg := e.cfg("g", "c1", rec.handle)
		cfg.MinIdle = 100 * time.Millisecond
		cfg.MaxDeliveries = 2
		r := startConsumer(t, c, cfg)
		waitFor(t, "dead-lettered", func() bool { return r.c.Stats().Dead == 1 })
		waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
		dead := e.stream.DeadLetters()
		dls, err := dead.List(ctx, echomq.All, nil)
		require.NoError(t, err)
		require.Len(t, dls, 1)
		require.Equal(t, ids[2], dls[0].Origin)
		replayed, err := dead.Replay(ctx, dls[0].ID)
		require.NoError(t, err)
		waitFor(t, "replayed event handled", func() bool { return len(rec.of(replayed)) == 1 })
		waitFor(t, "nothing pending", func() bool { return e.pending(t, "g") == 0 })
		r.halt(t)
		existed, err := e.stream.Group("g").DeleteConsumer(ctx, "c1")
		require.NoError(t, err)
		require.True(t, existed)
	}
}
