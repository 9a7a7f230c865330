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
// with the Prometheus metrics and OpenTelemetry tracing both on (trace
// context injected, handlers in process spans) against both off, in the
// same run (target: x_vs_off ≥ 0.95). "all" samples every trace,
// "ratio1pct" one in a hundred.
func BenchmarkObservability(b *testing.B) {
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
			hookbench.Compare(b, []echomq.Hook{emqprom.NewMetrics(nil), tr}, tr.Handler)
		})
	}
}
