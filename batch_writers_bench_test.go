package echomq_test

import (
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// batchWritersRound is how many records each contender of
// BenchmarkAppendBatchWriters writes per round: large, so that starting
// the redis-benchmark process (a few milliseconds) weighs little.
const batchWritersRound = 1 << 16

// BenchmarkAppendBatchWriters compares AppendBatch of 64 records from 16
// goroutines of one client with `redis-benchmark -c 16 -P 64` of XADD * on
// the same server (target ≥ 0.6×, ≤ 0.05 refused XADDs per record), and
// from one goroutine with `-c 1 -P 64` (target ≥ 0.6×): the goroutines of
// one client race each other for the stream's top (a batch minted later
// may reach the engine first), and the refused records are minted again
// and re-sent plain instead of going through the append script. The
// redis-benchmark side includes its process start, about 1–3 ms of a
// round of 65,536 records.
func BenchmarkAppendBatchWriters(b *testing.B) {
	rb, err := exec.LookPath("redis-benchmark")
	if err != nil {
		b.Skip("redis-benchmark is not installed (make redis-server installs redis-tools)")
	}
	e := newBenchEnv(b)
	u, err := url.Parse(e.url)
	require.NoError(b, err)
	records := make([]echomq.Fields, benchBatch)
	for i := range records {
		records[i] = benchPayload
	}
	for _, g := range []int{16, 1} {
		s := e.emq.Stream(e.q, "batch-writers-"+strconv.Itoa(g))
		rbKey := s.Key() + ".redis-benchmark"
		ours := func(n int) error {
			return echomqtest.FanOut(g, n/benchBatch, func() error { _, err := s.AppendBatch(ctx, records, nil); return err })
		}
		args := []string{
			"-h", u.Hostname(), "-p", u.Port(), "-c", strconv.Itoa(g), "-P", strconv.Itoa(benchBatch), "-q",
			"XADD", rbKey, "*",
		}
		args = append(args, benchPayload...)
		redisBenchmark := func(n int) error {
			out, err := exec.Command(rb, append([]string{"-n", strconv.Itoa(n)}, args...)...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("redis-benchmark: %w: %s", err, out)
			}
			return nil
		}
		b.Run(fmt.Sprintf("goroutines%d/ratio", g), func(b *testing.B) {
			require.NoError(b, e.resetStats())
			before := echomq.AppendStatsOf(e.emq)
			records := compareRounds(b, batchWritersRound, "records/s",
				side{"ours", func() error { return e.del(s.Key()) }, ours},
				side{"redis_benchmark", func() error { return e.del(rbKey) }, redisBenchmark})
			after := echomq.AppendStatsOf(e.emq)
			_, refused, err := e.retries()
			require.NoError(b, err)
			b.ReportMetric(float64(refused)/float64(records), "refused/record")
			b.ReportMetric(float64(after.Scripts-before.Scripts)/float64(records/benchBatch), "scripts/batch")
		})
	}
}
