package emqotel

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/lanes"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/echomq/echomq/otel"

// Attribute keys of OpenTelemetry's messaging semantic conventions.
const (
	AttrSystem        = attribute.Key("messaging.system")
	AttrDestination   = attribute.Key("messaging.destination.name")
	AttrOperationType = attribute.Key("messaging.operation.type")
	AttrOperationName = attribute.Key("messaging.operation.name")
	AttrMessageID     = attribute.Key("messaging.message.id")
	AttrBatchCount    = attribute.Key("messaging.batch.message_count")
	AttrGroup         = attribute.Key("messaging.consumer.group.name")
	AttrDeliveryCount = attribute.Key("messaging.echomq.delivery_count")
	AttrQueue         = attribute.Key("messaging.echomq.queue")
	AttrErrorType     = attribute.Key("error.type")
)

// System is the messaging.system value.
const System = "echomq"

// Config configures [New]; the zero value is the defaults.
type Config struct {
	// TracerProvider makes the tracer. Defaults to the global one
	// (otel.GetTracerProvider()).
	TracerProvider trace.TracerProvider
	// Propagator writes and reads the trace context of an entry. Defaults
	// to W3C trace context (propagation.TraceContext).
	Propagator propagation.TextMapPropagator
	// Inject writes the send span's trace context into every appended
	// entry ([TraceParentField], [TraceStateField]) so consumers link to
	// it. Defaults to false: nothing is added to entries.
	Inject bool
	// Handoff is how long an append's send span may wait before it is
	// handed to the SDK. An append records only its instants, outcome and
	// parent span; the SDK starts and ends the span later, in a batch with
	// the other appends of that interval, on a timer's goroutine (with
	// Inject the span is started on the append path, since its trace
	// context goes into the entry, and only its end waits). The span's
	// start and end are the append's own either way. This keeps the SDK's
	// work, a few microseconds per span, and its batch processor's wake-up
	// off the append's path: a serial append is a round trip, and the
	// sampled span of every append would otherwise cost it 10-25 %.
	// Call [Tracing.Flush] before shutting the TracerProvider down.
	// Defaults to [DefaultHandoff]; a negative value starts and ends every
	// send span on the append path, as it happens (then the span is the
	// current span of the append's context, for the hooks that follow).
	Handoff time.Duration
}

// Tracing is the set of tracing hooks: give it to echomq.Config.Hooks. It
// implements [echomq.AppendPrepareHook], [echomq.AppendHook],
// [echomq.DeadLetterHook], [lanes.JobHook] and
// [archive.CycleHook]; it is safe for concurrent use.
type Tracing struct {
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator
	inject  bool
	sends   sync.Map // queue "\x00" stream → *send: a send span's name and options, made once per stream
	handoff *handoff // nil: send spans start and end on the append path
}

// send is what every send span of one stream starts with.
type send struct {
	name string
	opts []trace.SpanStartOption
}

func (t *Tracing) send(queue, stream string) *send {
	key := queue + "\x00" + stream
	if v, ok := t.sends.Load(key); ok {
		return v.(*send)
	}
	s := &send{name: "send " + stream, opts: []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(AttrSystem.String(System), AttrDestination.String(stream), AttrQueue.String(queue),
			AttrOperationType.String("send"), AttrOperationName.String("append")),
	}}
	v, _ := t.sends.LoadOrStore(key, s)
	return v.(*send)
}

var (
	_ echomq.AppendPrepareHook = (*Tracing)(nil)
	_ echomq.AppendHook        = (*Tracing)(nil)
	_ echomq.DeadLetterHook    = (*Tracing)(nil)
	_ lanes.JobHook            = (*Tracing)(nil)
	_ archive.CycleHook        = (*Tracing)(nil)
)

// New returns the tracing hooks; nil cfg means the defaults.
func New(cfg *Config) *Tracing {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.TracerProvider == nil {
		c.TracerProvider = otel.GetTracerProvider()
	}
	if c.Propagator == nil {
		c.Propagator = propagation.TraceContext{}
	}
	t := &Tracing{tracer: c.TracerProvider.Tracer(ScopeName), prop: c.Propagator, inject: c.Inject}
	if c.Handoff >= 0 {
		d := c.Handoff
		if d == 0 {
			d = DefaultHandoff
		}
		t.handoff = &handoff{t: t, delay: d}
	}
	return t
}

// sendKey carries the send span from PrepareAppend to OnAppend.
type sendKey struct{}

// PrepareAppend starts the send span when it has to start on the append
// path (with Config.Inject, or without a handoff) and, with Config.Inject,
// writes its trace context into copies of the records.
func (t *Tracing) PrepareAppend(ctx context.Context, p *echomq.AppendPrepare) context.Context {
	if !t.inject && t.handoff != nil {
		return ctx // the span starts at the handoff
	}
	sd := t.send(p.Queue, p.Stream)
	ctx, span := t.tracer.Start(ctx, sd.name, sd.opts...)
	if t.inject {
		for i, f := range p.Records {
			out := make(echomq.Fields, len(f), len(f)+4)
			copy(out, f)
			t.prop.Inject(ctx, carrier{&out})
			p.Records[i] = out
		}
	}
	return context.WithValue(ctx, sendKey{}, span)
}

// OnAppend ends the send span with the receipt (or the error), or leaves
// that to the handoff; an append refused before PrepareAppend (bad input)
// gets a span of its own.
func (t *Tracing) OnAppend(ctx context.Context, a echomq.AppendInfo) {
	span, started := ctx.Value(sendKey{}).(trace.Span)
	if t.handoff != nil {
		w := waiting{
			sd: t.send(a.Queue, a.Stream), start: a.Start, end: a.Start.Add(a.Duration),
			id: a.ID, batch: a.Batch, records: a.Records, err: a.Err,
		}
		if started {
			w.span = span
		} else {
			w.parent = trace.SpanContextFromContext(ctx)
		}
		t.handoff.add(w)
		return
	}
	if !started {
		sd := t.send(a.Queue, a.Stream)
		_, span = t.tracer.Start(ctx, sd.name, append([]trace.SpanStartOption{trace.WithTimestamp(a.Start)}, sd.opts...)...)
	}
	settle(span, a.Batch, a.Records, a.ID, a.Err)
	span.End(trace.WithTimestamp(a.Start.Add(a.Duration)))
}

// Handler wraps a consumer's handler in a "process" span (kind consumer),
// linked to the producer's span when the entry carries its trace context;
// the handler's context carries the span, so its own spans are children.
func (t *Tracing) Handler(h echomq.HandlerFunc) echomq.HandlerFunc {
	return func(ctx context.Context, d echomq.Delivery) error {
		ctx, span := t.tracer.Start(ctx, "process "+d.Stream, trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithLinks(t.links(d.Fields)...))
		defer span.End()
		if span.IsRecording() {
			span.SetAttributes(AttrSystem.String(System), AttrDestination.String(d.Stream), AttrQueue.String(d.Queue),
				AttrOperationType.String("process"), AttrOperationName.String("handle"), AttrGroup.String(d.Group),
				AttrMessageID.String(d.Key()), AttrDeliveryCount.Int64(d.Attempts))
		}
		err := h(ctx, d)
		failed(span, err)
		return err
	}
}

// Extract returns ctx with the remote span context an entry's fields carry
// (none when they carry none), for a program that reads entries itself.
func (t *Tracing) Extract(ctx context.Context, f echomq.Fields) context.Context {
	return t.prop.Extract(ctx, carrier{&f})
}

func (t *Tracing) links(f echomq.Fields) []trace.Link {
	sc := trace.SpanContextFromContext(t.Extract(context.Background(), f))
	if !sc.IsValid() {
		return nil
	}
	return []trace.Link{{SpanContext: sc}}
}

// OnDeadLetter records a "settle" span for an entry given up on, linked to
// its producer.
func (t *Tracing) OnDeadLetter(ctx context.Context, d echomq.DeadLetterInfo) {
	_, span := t.tracer.Start(ctx, "settle "+d.Stream, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(t.links(d.Fields)...),
		trace.WithAttributes(AttrSystem.String(System), AttrDestination.String(d.Stream), AttrQueue.String(d.Queue),
			AttrOperationType.String("settle"), AttrOperationName.String("dead_letter"), AttrGroup.String(d.Group),
			AttrMessageID.String(d.Key()), AttrDeliveryCount.Int64(d.Attempts), attribute.String("messaging.echomq.cause", d.Cause)))
	failed(span, d.Err)
	span.End()
}

// OnJob records a "process" span for each settled lanes job, from the
// handler's start to its end; claims and lost leases are events of no
// span.
func (t *Tracing) OnJob(ctx context.Context, j lanes.JobTransition) {
	switch j.Event {
	case lanes.JobCompleted, lanes.JobRetried, lanes.JobDead:
	default:
		return
	}
	end := time.Now()
	_, span := t.tracer.Start(ctx, "process "+j.Queue, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithTimestamp(end.Add(-j.Run)),
		trace.WithAttributes(AttrSystem.String(System), AttrDestination.String(j.Queue), AttrOperationType.String("process"),
			AttrOperationName.String("job"), AttrMessageID.String(j.Job.String()), AttrDeliveryCount.Int(j.Attempt),
			attribute.String("messaging.echomq.outcome", j.Event)))
	failed(span, j.Err)
	span.End(trace.WithTimestamp(end))
}

// OnArchiveCycle records an internal span for an archive cycle.
func (t *Tracing) OnArchiveCycle(ctx context.Context, a archive.CycleInfo) {
	_, span := t.tracer.Start(ctx, "archive "+a.Stream, trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(a.Start),
		trace.WithAttributes(AttrSystem.String(System), AttrDestination.String(a.Stream), AttrQueue.String(a.Queue),
			attribute.Int64("echomq.archive.folded", a.Folded), attribute.Int("echomq.archive.segments", a.Segments),
			attribute.Int64("echomq.archive.bytes", a.Bytes), attribute.Int64("echomq.archive.trimmed", a.Trimmed)))
	failed(span, a.Err)
	span.End(trace.WithTimestamp(a.Start.Add(a.Duration)))
}

func failed(span trace.Span, err error) {
	if err == nil {
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
	span.SetAttributes(AttrErrorType.String("error"))
}
