package bench_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest/hookbench"
	emqotel "github.com/echomq/echomq/otel"
	emqprom "github.com/echomq/echomq/prometheus"
)

// BenchmarkObservability: Append and a consumer's end-to-end throughput
// with the Prometheus metrics and OpenTelemetry tracing both on (handlers
// in process spans) against both off, in the same run (target: x_vs_off ≥
// 0.95). "all" samples every trace, "ratio1pct" one in a hundred;
// "default" is the tracer's defaults (nothing added to entries), "inject"
// writes the trace context into every entry.
func BenchmarkObservability(b *testing.B) {
	for _, tc := range []struct {
		name    string
		sampler sdktrace.Sampler
		inject  bool
	}{
		{"all/default", sdktrace.AlwaysSample(), false},
		{"ratio1pct/default", sdktrace.TraceIDRatioBased(0.01), false},
		{"all/inject", sdktrace.AlwaysSample(), true},
		{"ratio1pct/inject", sdktrace.TraceIDRatioBased(0.01), true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithSampler(tc.sampler))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			tr := emqotel.New(&emqotel.Config{TracerProvider: tp, Inject: tc.inject})
			b.Cleanup(tr.Flush) // runs before the Shutdown above
			hookbench.Compare(b, []echomq.Hook{emqprom.NewMetrics(nil), tr}, tr.Handler)
		})
	}
}
