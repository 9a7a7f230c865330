// Package emqotel traces EchoMQ with OpenTelemetry, in a module of its own
// so the library never requires the OTel SDK.
//
// A [Tracing] is a set of hooks ([echomq.Hook]) for echomq.Config.Hooks:
// every append gets a "send" span (kind producer), every lanes job settle a
// "process" span, every archive cycle an internal span, every dead letter a
// "settle" span, named and attributed after OpenTelemetry's messaging
// semantic conventions (messaging.system = "echomq",
// messaging.destination.name, messaging.operation.type,
// messaging.message.id, …). Wrap a consumer's handler with
// [Tracing.Handler] for a "process" span around each delivery, the parent
// of the handler's own spans.
//
// A send span is handed to the SDK off the append path, in a batch with
// the other appends of a few milliseconds, with the append's own start,
// end and parent ([Config.Handoff]): call [Tracing.Flush] before shutting
// the TracerProvider down.
//
// Trace context travels in the entry only when asked for
// ([Config.Inject]): the send span's W3C traceparent (and tracestate) is
// written to the opt-in field [TraceParentField] ([TraceStateField]), and a
// consumer's process span links to the producer's span, across processes.
// Nothing is added to an entry otherwise. [Caused] adds correlation and
// causation ids to the fields of an event written in reaction to another.
package emqotel
