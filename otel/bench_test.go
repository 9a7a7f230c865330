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
// each delivery handled in a process span), against off, in the same run
// (target: the x_vs_off ratios ≥ 0.95). "all" samples every span,
// "ratio1pct" one trace in a hundred. "default" is New's defaults (send
// spans handed to the SDK off the append path, nothing added to entries);
// "inject" writes the trace context into every entry (Config.Inject);
// "sync" starts and ends every send span on the append path
// (Config.Handoff < 0), the way without the handoff.
func BenchmarkTracingOverhead(b *testing.B) {
	for _, tc := range Modes {
		b.Run(tc.Name, func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithSampler(tc.Sampler))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			cfg := tc.Config
			cfg.TracerProvider = tp
			tr := emqotel.New(&cfg)
			b.Cleanup(tr.Flush) // runs before the Shutdown above
			hookbench.Compare(b, []echomq.Hook{tr}, tr.Handler)
		})
	}
}

// Modes are the tracing set-ups the overhead benchmarks compare with off.
var Modes = []struct {
	Name    string
	Sampler sdktrace.Sampler
	Config  emqotel.Config
}{
	{"all/default", sdktrace.AlwaysSample(), emqotel.Config{}},
	{"ratio1pct/default", sdktrace.TraceIDRatioBased(0.01), emqotel.Config{}},
	{"all/inject", sdktrace.AlwaysSample(), emqotel.Config{Inject: true}},
	{"ratio1pct/inject", sdktrace.TraceIDRatioBased(0.01), emqotel.Config{Inject: true}},
	{"all/sync", sdktrace.AlwaysSample(), emqotel.Config{Handoff: -1}},
	{"all/inject-sync", sdktrace.AlwaysSample(), emqotel.Config{Inject: true, Handoff: -1}},
}

// BenchmarkHookCost measures the tracing hooks of one append alone (span
// start, injection, span end, all on the append path), without the engine.
func BenchmarkHookCost(b *testing.B) {
	for _, inject := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "inject"}[inject], func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			tr := emqotel.New(&emqotel.Config{TracerProvider: tp, Inject: inject, Handoff: -1})
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
