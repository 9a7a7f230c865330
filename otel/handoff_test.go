package emqotel_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	emqotel "github.com/echomq/echomq/otel"
)

// handoffClient is a client traced with cfg, its spans recorded.
func handoffClient(t *testing.T, cfg emqotel.Config) (*emqotel.Tracing, *tracetest.SpanRecorder, *sdktrace.TracerProvider, *echomq.Client) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	cfg.TracerProvider = tp
	tr := emqotel.New(&cfg)
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: echomqtest.Shared(t).URL(), Hooks: []echomq.Hook{tr}, Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return tr, rec, tp, c
}

// A send span handed off later keeps the append's instants, its parent and
// its attributes; nothing is handed over before the handoff.
func TestHandoffKeepsInstantsAndParent(t *testing.T) {
	t.Parallel()
	for _, inject := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "inject"}[inject], func(t *testing.T) {
			t.Parallel()
			tr, rec, tp, c := handoffClient(t, emqotel.Config{Handoff: time.Hour, Inject: inject})
			s := c.Stream(echomqtest.Queue(t), "later")
			ctx, root := tp.Tracer("test").Start(context.Background(), "caller")
			before := time.Now()
			id, err := s.Append(ctx, echomq.F("k", "v"), nil)
			after := time.Now()
			require.NoError(t, err)
			root.End()
			require.Len(t, rec.Ended(), 1, "only the caller's span has ended: the send span waits for the handoff")

			tr.Flush()
			spans := rec.Ended()
			require.Len(t, spans, 2)
			send := spans[1]
			require.Equal(t, "send later", send.Name())
			require.Equal(t, root.SpanContext().TraceID(), send.SpanContext().TraceID())
			require.Equal(t, root.SpanContext().SpanID(), send.Parent().SpanID())
			require.Equal(t, id.String(), attrs(send)["messaging.message.id"])
			require.False(t, send.StartTime().Before(before), "started at the append, not at the handoff")
			require.False(t, send.EndTime().After(after), "ended at the append, not at the handoff")
			require.False(t, send.EndTime().Before(send.StartTime()))

			evs, err := s.Read(context.Background(), echomq.All, nil)
			require.NoError(t, err)
			if inject {
				want := "00-" + send.SpanContext().TraceID().String() + "-" + send.SpanContext().SpanID().String() + "-01"
				require.Equal(t, want, evs[0].Fields.Value(emqotel.TraceParentField))
			} else {
				require.Equal(t, echomq.F("k", "v"), evs[0].Fields)
			}
		})
	}
}

// Without a Flush, the handoff comes by itself within Config.Handoff.
func TestHandoffByItself(t *testing.T) {
	t.Parallel()
	_, rec, _, c := handoffClient(t, emqotel.Config{Handoff: time.Millisecond})
	s := c.Stream(echomqtest.Queue(t), "timer")
	for range 3 {
		_, err := s.Append(context.Background(), echomq.F("k", "v"), nil)
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return len(rec.Ended()) == 3 }, 30*time.Second, time.Millisecond)
}

// Config.Handoff < 0 starts and ends every send span on the append path.
func TestNoHandoff(t *testing.T) {
	t.Parallel()
	_, rec, _, c := handoffClient(t, emqotel.Config{Handoff: -1})
	s := c.Stream(echomqtest.Queue(t), "now")
	_, err := s.Append(context.Background(), echomq.F("k", "v"), nil)
	require.NoError(t, err)
	require.Len(t, rec.Ended(), 1, "ended before Append returned")
}

// Many appending goroutines: every span is handed over exactly once; past
// the bound of waiting spans the appenders hand them over themselves,
// dropping none.
func TestHandoffUnderLoad(t *testing.T) {
	restore := emqotel.SetMaxWaiting(16)
	defer restore()
	tr, rec, _, c := handoffClient(t, emqotel.Config{Handoff: time.Hour})
	s := c.Stream(echomqtest.Queue(t), "load")
	const writers, each = 16, 25
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				if _, err := s.Append(context.Background(), echomq.F("k", "v"), nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	require.GreaterOrEqual(t, len(rec.Ended()), writers*each-16, "the appenders handed over all but the last few themselves")
	tr.Flush()
	spans := rec.Ended()
	require.Len(t, spans, writers*each)
	seen := map[string]bool{}
	for _, sp := range spans {
		id := attrs(sp)["messaging.message.id"]
		require.False(t, seen[id], "span of %s twice", id)
		seen[id] = true
	}
}
