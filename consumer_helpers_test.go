package echomq_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// discardLog discards the consumers' logs in tests.
var discardLog = slog.New(slog.DiscardHandler)

// waitTimeout bounds every wait for a consumer to get somewhere; it is a
// safety net for a hung test, never a speed assertion.
const waitTimeout = 15 * time.Second

// groupEnv is one test's queue, stream and client on the shared server.
type groupEnv struct {
	c      *echomq.Client
	queue  string
	stream *echomq.Stream
	srv    string // the engine's URL
}

func newGroupEnv(t *testing.T) *groupEnv {
	t.Helper()
	url := echomqtest.Shared(t).URL()
	c := connect(t, echomq.Config{URL: url})
	q := echomqtest.Queue(t)
	return &groupEnv{c: c, queue: q, stream: c.Stream(q, "events"), srv: url}
}

func (e *groupEnv) url(*testing.T) string { return e.srv }

// cfg returns a consumer config for the env's stream with fast test timings.
func (e *groupEnv) cfg(group, name string, h echomq.HandlerFunc) echomq.ConsumerConfig {
	return echomq.ConsumerConfig{
		Queue: e.queue, Stream: "events", Group: group, Name: name, Start: echomq.StartHead, Handle: h,
		Beat: 20 * time.Millisecond, MinIdle: 400 * time.Millisecond, Logger: discardLog, Grace: 2 * time.Second,
	}
}

func (e *groupEnv) append(t *testing.T, n int) []echomq.ID {
	t.Helper()
	recs := make([]echomq.Fields, n)
	for i := range recs {
		recs[i] = echomq.F("n", itoa(i))
	}
	ids, err := e.stream.AppendBatch(ctx, recs, nil)
	require.NoError(t, err)
	return ids
}

// pending returns the group's pending count, -1 while the group does not
// exist (it is polled from eventually, which must not fail the test).
func (e *groupEnv) pending(t *testing.T, group string) int64 {
	t.Helper()
	gi, err := e.stream.Group(group).Info(ctx)
	if err != nil {
		return -1
	}
	return gi.Pending
}

// running is a consumer running in the background of a test.
type consumerRun struct {
	c    *echomq.Consumer
	stop context.CancelFunc
	done chan error
}

// start runs a consumer until the test stops it (or ends).
func startConsumer(t *testing.T, client *echomq.Client, cfg echomq.ConsumerConfig) *consumerRun {
	t.Helper()
	c, err := client.Consumer(&cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r := &consumerRun{c: c, stop: cancel, done: make(chan error, 1)}
	go func() { r.done <- c.Run(ctx) }()
	t.Cleanup(func() { r.halt(t) })
	return r
}

// halt stops the consumer and waits for Run to return nil.
func (r *consumerRun) halt(t *testing.T) echomq.ConsumerStats {
	t.Helper()
	r.stop()
	if r.done != nil {
		select {
		case err := <-r.done:
			require.NoError(t, err)
		case <-time.After(waitTimeout):
			t.Fatal("consumer did not stop")
		}
		r.done = nil
	}
	return r.c.Stats()
}

// deliveryLog is a handler that records every delivery and fails as told.
type deliveryLog struct {
	mu   sync.Mutex
	got  []echomq.Delivery
	fail func(d echomq.Delivery) error
}

func (r *deliveryLog) handle(_ context.Context, d echomq.Delivery) error {
	r.mu.Lock()
	r.got = append(r.got, d)
	fail := r.fail
	r.mu.Unlock()
	if fail != nil {
		return fail(d)
	}
	return nil
}

func (r *deliveryLog) deliveries() []echomq.Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]echomq.Delivery(nil), r.got...)
}

// of returns the deliveries of one record.
func (r *deliveryLog) of(id echomq.ID) []echomq.Delivery {
	var out []echomq.Delivery
	for _, d := range r.deliveries() {
		if d.ID == id {
			out = append(out, d)
		}
	}
	return out
}

// distinct returns the records delivered at least once.
func (r *deliveryLog) distinct() map[echomq.ID]int {
	m := map[echomq.ID]int{}
	for _, d := range r.deliveries() {
		m[d.ID]++
	}
	return m
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, waitTimeout, 5*time.Millisecond, what)
}
