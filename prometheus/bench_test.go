package emqprom_test

import (
	"testing"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest/hookbench"
	emqprom "github.com/echomq/echomq/prometheus"
)

// BenchmarkMetricsOverhead: Append and a consumer's end-to-end throughput
// with the hook-fed metrics on, against off, in the same run (target: the
// x_vs_off ratios ≥ 0.95).
func BenchmarkMetricsOverhead(b *testing.B) {
	hookbench.Compare(b, []echomq.Hook{emqprom.NewMetrics(nil)}, nil)
}
