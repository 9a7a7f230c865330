package emqotel_test

import (
	"context"
	"fmt"
	"io"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
	emqotel "github.com/echomq/echomq/otel"
)

// Trace appends with the trace context carried in the entry: the reader
// of the entry (here the same program; usually a consumer in another
// process) recovers the producer's span.
func Example() {
	ctx := context.Background()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(ctx)
	tracing := emqotel.New(&emqotel.Config{TracerProvider: tp, Inject: true})
	defer tracing.Flush() // before the Shutdown: deferred calls run last first
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, Hooks: []echomq.Hook{tracing}, Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	orders := client.Stream("shop", "orders")
	if _, err := orders.Append(ctx, echomq.F("sku", "A-1"), nil); err != nil {
		panic(err)
	}

	tracing.Flush() // hand the send span to the SDK now, not within Config.Handoff
	send := rec.Ended()[0]
	evs, err := orders.Read(ctx, echomq.All, nil)
	if err != nil {
		panic(err)
	}
	fields := evs[0].Fields
	producer := trace.SpanContextFromContext(tracing.Extract(ctx, fields))
	fmt.Println(send.Name(), send.SpanKind())
	fmt.Println(fields[0], fields[2])
	fmt.Println("same span:", producer.SpanID() == send.SpanContext().SpanID())
	// Output:
	// send orders producer
	// sku emq.traceparent
	// same span: true
}

// Write an event in reaction to a delivery with the chain's correlation
// id and its cause.
func ExampleCaused() {
	d := echomq.Delivery{Event: echomq.Event{ID: mustID("EVT000xY9Wvvcd"), Fields: echomq.F("order", "o-1")}}
	shipped := emqotel.Caused(d, echomq.F("order", "o-1", "carrier", "dhl"))
	fmt.Println(emqotel.Correlation(shipped), emqotel.Causation(shipped))

	// The next reaction keeps the correlation id and names its own cause.
	next := echomq.Delivery{Event: echomq.Event{ID: mustID("EVT000xY9Wvvce"), Fields: shipped}}
	billed := emqotel.Caused(next, echomq.F("order", "o-1"))
	fmt.Println(emqotel.Correlation(billed), emqotel.Causation(billed))
	// Output:
	// EVT000xY9Wvvcd EVT000xY9Wvvcd
	// EVT000xY9Wvvcd EVT000xY9Wvvce
}

func mustID(s string) echomq.ID {
	id, err := echomq.ParseID(s)
	if err != nil {
		panic(err)
	}
	return id
}
