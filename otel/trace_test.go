package emqotel_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	emqotel "github.com/echomq/echomq/otel"
)

const producerEnv = "EMQOTEL_TEST_PRODUCER" // url queue stream: run as the producer process

func TestMain(m *testing.M) {
	if args := os.Getenv(producerEnv); args != "" {
		os.Exit(produce(strings.Fields(args)))
	}
	echomqtest.MainWithLeakCheck(m)
}

// produce is the producer process: it appends one entry inside a span of
// its own, with the trace context injected, and prints the send span's
// trace and span ids.
func produce(args []string) int {
	ctx := context.Background()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tr := emqotel.New(&emqotel.Config{TracerProvider: tp, Inject: true})
	c, err := echomq.Connect(ctx, &echomq.Config{URL: args[0], Hooks: []echomq.Hook{tr}, Notice: io.Discard})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	ctx, root := tp.Tracer("producer").Start(ctx, "checkout")
	if _, err := c.Stream(args[1], args[2]).Append(ctx, echomq.F("order", "o-1"), nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	root.End()
	tr.Flush()
	for _, s := range rec.Ended() {
		if s.Name() == "send "+args[2] {
			fmt.Println(s.SpanContext().TraceID(), s.SpanContext().SpanID(), s.Parent().SpanID())
			return 0
		}
	}
	fmt.Fprintln(os.Stderr, "no send span")
	return 1
}

// TestConsumerSpanLinksToProducer runs the producer in another process and
// checks that the consumer's process span links to the producer's send
// span through the trace context carried in the entry.
func TestConsumerSpanLinksToProducer(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	q := echomqtest.Queue(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), producerEnv+"="+url+" "+q+" orders")
	out, err := cmd.Output()
	require.NoError(t, err, "producer: %s", out)
	var traceID, spanID, parentID string
	_, err = fmt.Sscan(string(out), &traceID, &spanID, &parentID)
	require.NoError(t, err, "producer said %q", out)

	ctx := context.Background()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tr := emqotel.New(&emqotel.Config{TracerProvider: tp})
	c, err := echomq.Connect(ctx, &echomq.Config{URL: url, Hooks: []echomq.Hook{tr}, Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })

	type delivered struct {
		sc     trace.SpanContext
		fields echomq.Fields
	}
	handled := make(chan delivered, 1)
	cons, err := c.Consumer(&echomq.ConsumerConfig{
		Queue: q, Stream: "orders", Group: "ship", Start: echomq.StartHead,
		Logger: slog.New(slog.DiscardHandler), Beat: 50 * time.Millisecond,
		Handle: tr.Handler(func(ctx context.Context, d echomq.Delivery) error {
			handled <- delivered{trace.SpanContextFromContext(ctx), d.Fields}
			return nil
		}),
	})
	require.NoError(t, err)
	require.NoError(t, cons.Start(ctx))
	var got delivered
	select {
	case got = <-handled:
	case <-time.After(20 * time.Second):
		t.Fatal("no delivery")
	}
	require.NoError(t, cons.Stop(ctx))
	inHandler := got.sc
	require.Equal(t, "o-1", got.fields.Value("order"))
	require.Equal(t, "00-"+traceID+"-"+spanID+"-01", got.fields.Value(emqotel.TraceParentField))

	var process sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "process orders" {
			process = s
		}
	}
	require.NotNil(t, process, "no process span")
	require.Equal(t, inHandler.SpanID(), process.SpanContext().SpanID(), "the handler runs inside the process span")
	require.Equal(t, trace.SpanKindConsumer, process.SpanKind())
	require.Len(t, process.Links(), 1)
	link := process.Links()[0].SpanContext
	require.Equal(t, traceID, link.TraceID().String())
	require.Equal(t, spanID, link.SpanID().String())
	require.True(t, link.IsRemote())
	require.NotEqual(t, parentID, spanID)
	attrs := attrs(process)
	require.Equal(t, "echomq", attrs["messaging.system"])
	require.Equal(t, "orders", attrs["messaging.destination.name"])
	require.Equal(t, "process", attrs["messaging.operation.type"])
	require.Equal(t, "ship", attrs["messaging.consumer.group.name"])
	require.Len(t, attrs["messaging.message.id"], 14)
}
