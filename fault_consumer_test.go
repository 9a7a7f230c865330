package echomq_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// TestConsumerStartsDuringOutage: a consumer started while the engine is
// down does not fail: its first XGROUP CREATE waits for the engine, the
// outage is logged once and its end once, and it consumes once the engine
// is back. Its stop is logged with its reason.
func TestConsumerStartsDuringOutage(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	log := &echomqtest.Logs{}
	c := faultClient(t, srv.URL(), echomq.Config{Logger: log.Logger()})
	q := echomqtest.Queue(t)
	got := make(chan string, 10)
	cons, err := c.Consumer(&echomq.ConsumerConfig{
		Queue: q, Stream: "ev", Group: "g", Start: echomq.StartHead,
		Beat: 200 * time.Millisecond, Logger: log.Logger(),
		Handle: func(_ context.Context, d echomq.Delivery) error { got <- d.Fields[1]; return nil },
	})
	require.NoError(t, err)

	require.NoError(t, srv.Kill())
	require.NoError(t, cons.Start(context.Background()))
	time.Sleep(2 * time.Second) // sleep: the outage lasts; the consumer keeps trying meanwhile
	select {
	case <-cons.Stopped():
		t.Fatal("the consumer gave up while the engine was down")
	default:
	}
	srv.Restart(t)
	appendN(t, c.Stream(q, "ev"), 0, 3)
	for i := range 3 {
		select {
		case n := <-got:
			require.Equal(t, itoa(i), n)
		case <-time.After(30 * time.Second):
			t.Fatal("the consumer did not start after the engine came back")
		}
	}
	require.NoError(t, cons.Stop(context.Background()))
	require.Equal(t, 1, log.Count("echomq: consumer: engine unavailable; retrying"), "%q", log.Messages())
	require.Equal(t, 1, log.Count("echomq: consumer: engine back"), "%q", log.Messages())
	require.Equal(t, 1, log.Count("echomq: consumer: stopped"))
}

// TestConsumerStopsOnPermanentError: a stream key of the wrong type is
// permanent: Run returns the error at once and logs why it stopped.
func TestConsumerStopsOnPermanentError(t *testing.T) {
	t.Parallel()
	log := &echomqtest.Logs{}
	c := faultClient(t, echomqtest.Shared(t).URL(), echomq.Config{})
	q := echomqtest.Queue(t)
	_, err := rawcmd.Do(context.Background(), c, "SET", "emq:{"+q+"}:stream:plain", "v")
	require.NoError(t, err)
	cons, err := c.Consumer(&echomq.ConsumerConfig{
		Queue: q, Stream: "plain", Group: "g", Start: echomq.StartHead,
		Logger: log.Logger(), Handle: func(context.Context, echomq.Delivery) error { return nil },
	})
	require.NoError(t, err)
	err = cons.Run(context.Background())
	require.ErrorIs(t, err, echomq.ErrWrongType)
	require.NotErrorIs(t, err, echomq.ErrUnavailable)
	require.Equal(t, 1, log.Count("echomq: consumer: stopped on a permanent error"))
}
