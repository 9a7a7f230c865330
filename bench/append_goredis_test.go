package bench_test

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

const appendRound = 2048 // appends per contender per ratio round

// BenchmarkAppendGoRedis compares Append from 64 goroutines with go-redis
// XAdd of the same payload (target: ≥ 2×), with go-redis's default
// options. The comparison with raw valkey-go is the root module's
// BenchmarkAppend.
func BenchmarkAppendGoRedis(b *testing.B) {
	e := newBenchEnv(b)
	gr := redis.NewClient(&redis.Options{Addr: e.addr})
	b.Cleanup(func() { require.NoError(b, gr.Close()) })
	s := e.emq.Stream(e.q, "append")
	grKey := s.Key() + ".goredis"
	ours := func() error { _, err := s.Append(ctx, benchPayload, nil); return err }
	goredisOp := func() error {
		return gr.XAdd(ctx, &redis.XAddArgs{Stream: grKey, Values: []string(benchPayload)}).Err()
	}
	delOurs := func() error { return e.del(s.Key()) }
	delGoRedis := func() error { return e.del(grKey) }

	b.Run("parallel64/goredis", func(b *testing.B) { echomqtest.RunParallel(b, benchWriters, delGoRedis, goredisOp) })
	b.Run("parallel64/ratio", func(b *testing.B) {
		compareRounds(b, appendRound, "ops/s",
			side{Name: "ours", Reset: delOurs, Run: func(n int) error { return echomqtest.FanOut(benchWriters, n, ours) }},
			side{Name: "goredis", Reset: delGoRedis, Run: func(n int) error { return echomqtest.FanOut(benchWriters, n, goredisOp) }})
	})
}
