package emqotel_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest/hookbench"
	emqotel "github.com/echomq/echomq/otel"
)

// BenchmarkTracingOverhead: Append and a consumer's end-to-end throughput
// with tracing on (spans handed to an exporter through the SDK's batcher,
// the trace context injected into every entry, each delivery handled in a
// process span), against off, in the same run (target: the x_vs_off
// ratios ≥ 0.95). "all" samples every span, "ratio1pct" one trace in a
// hundred (the trace context is injected either way).
func BenchmarkTracingOverhead(b *testing.B) {
	for _, tc := range []struct {
		name    string
		sampler sdktrace.Sampler
	}{
		{"all", sdktrace.AlwaysSample()},
		{"ratio1pct", sdktrace.TraceIDRatioBased(0.01)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithSampler(tc.sampler))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			tr := emqotel.New(&emqotel.Config{TracerProvider: tp, Inject: true})
			hookbench.Compare(b, []echomq.Hook{tr}, tr.Handler)
		})
	}
}

// BenchmarkHookCost measures the tracing hooks of one append alone (span
// start, injection, span end), without the engine.
func BenchmarkHookCost(b *testing.B) {
	for _, inject := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "inject"}[inject], func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			tr := emqotel.New(&emqotel.Config{TracerProvider: tp, Inject: inject})
			f := echomq.F("room", "lobby-7", "player", "PLR0KHTOWnGLuC", "points", "120")
			b.ReportAllocs()
			for b.Loop() {
				p := echomq.AppendPrepare{Queue: "q", Stream: "s", Records: []echomq.Fields{f}}
				ctx := tr.PrepareAppend(context.Background(), &p)
				tr.OnAppend(ctx, echomq.AppendInfo{Queue: "q", Stream: "s", Records: 1})
			}
		})
	}
}
