package emqotel_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	emqotel "github.com/echomq/echomq/otel"
)

func tracer(t *testing.T, inject bool) (*emqotel.Tracing, *tracetest.SpanRecorder, *echomq.Client) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tr := emqotel.New(&emqotel.Config{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), Inject: inject})
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: echomqtest.Shared(t).URL(), Hooks: []echomq.Hook{tr}, Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return tr, rec, c
}

func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

func TestNothingAddedUnlessAsked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr, rec, c := tracer(t, false)
	s := c.Stream(echomqtest.Queue(t), "plain")
	id, err := s.Append(ctx, echomq.F("k", "v"), nil)
	require.NoError(t, err)
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, echomq.F("k", "v"), evs[0].Fields)
	tr.Flush()
	spans := rec.Ended()
	require.Len(t, spans, 1)
	require.Equal(t, "send plain", spans[0].Name())
	require.Equal(t, trace.SpanKindProducer, spans[0].SpanKind())
	a := attrs(spans[0])
	require.Equal(t, id.String(), a["messaging.message.id"])
	require.Equal(t, "send", a["messaging.operation.type"])
	require.Equal(t, "echomq", a["messaging.system"])
	require.Equal(t, s.Queue(), a["messaging.echomq.queue"])
}

func TestBatchAndFailedSends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr, rec, c := tracer(t, true)
	s := c.Stream(echomqtest.Queue(t), "batched")
	_, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("n", "1"), echomq.F("n", "2")}, nil)
	require.NoError(t, err)
	_, err = s.Append(ctx, echomq.F("odd"), nil)
	require.ErrorIs(t, err, echomq.ErrInvalidFields)

	tr.Flush()
	spans := rec.Ended()
	require.Len(t, spans, 2)
	batch, bad := spans[0], spans[1]
	require.Equal(t, "2", attrs(batch)["messaging.batch.message_count"])
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	want := "00-" + batch.SpanContext().TraceID().String() + "-" + batch.SpanContext().SpanID().String() + "-01"
	for _, ev := range evs {
		require.Equal(t, want, ev.Fields.Value(emqotel.TraceParentField))
	}
	require.Equal(t, codes.Error, bad.Status().Code)
	require.Len(t, bad.Events(), 1, "the error is recorded")
}

func TestJobAndArchiveSpans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := tracetest.NewSpanRecorder()
	tr := emqotel.New(&emqotel.Config{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))})
	tr.OnJob(ctx, lanes.JobTransition{Queue: "jobs", Lane: "l", Event: lanes.JobClaimed, Attempt: 1})
	tr.OnJob(ctx, lanes.JobTransition{Queue: "jobs", Lane: "l", Event: lanes.JobRetried, Attempt: 1, Run: 20 * time.Millisecond, Err: errors.New("boom")})
	start := time.Now().Add(-time.Second)
	tr.OnArchiveCycle(ctx, archive.CycleInfo{Queue: "q", Stream: "s", Folded: 4, Segments: 1, Bytes: 99, Start: start, Duration: 300 * time.Millisecond})
	spans := rec.Ended()
	require.Len(t, spans, 2, "a claim has no span")
	job, cycle := spans[0], spans[1]
	require.Equal(t, "process jobs", job.Name())
	require.Equal(t, 20*time.Millisecond, job.EndTime().Sub(job.StartTime()))
	require.Equal(t, "retried", attrs(job)["messaging.echomq.outcome"])
	require.Equal(t, codes.Error, job.Status().Code)
	require.Equal(t, "archive s", cycle.Name())
	require.Equal(t, start, cycle.StartTime())
	require.Equal(t, 300*time.Millisecond, cycle.EndTime().Sub(cycle.StartTime()))
	require.Equal(t, "4", attrs(cycle)["echomq.archive.folded"])
}
