package dcb_test

import (
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// floorScriptPath is the least an engine script can do for a group commit
// of tagged events: one INCRBY of a position counter per call and, per
// event, one XADD of the entry as a tagged event is stored (receipt,
// position, tags, payload; the engine's id) and one RPUSH of (position,
// entry id) per tag; with ARGV[2] = 'cond', before each event, the reads
// of the cheapest check of BenchmarkAppendTagged's two-item condition (a
// LINDEX of the last position of each source's list, an EXISTS). No id
// law, no idempotency, no argument checks. Like every Lua script of the
// project it lives in internal/wire/lua; the benchmark alone reads it.
const floorScriptPath = "../internal/wire/lua/bench_dcb_floor.lua"

// BenchmarkTaggedFloor measures the floor under BenchmarkAppendTagged's
// two-tag and conditional appends: the floor script with 32 events per call
// from 2 goroutines (the group committer's shape: two calls in flight)
// against the same plain Append from 64 goroutines. Whatever a tagged append does beyond the floor (the
// writer's ids and their law, conditions, idempotency, hooks) only adds
// to it, so this ratio bounds what any script that writes an index entry
// per tag per event can reach (BENCHMARKS.md, "Consistency boundaries").
func BenchmarkTaggedFloor(b *testing.B) {
	s, c := benchStore(b)
	plain := c.Stream(s.Queue(), "plain")
	prefix := "emq:{" + s.Queue() + "}:"
	floorScript, err := os.ReadFile(floorScriptPath)
	require.NoError(b, err)
	sha, err := rawcmd.Do(ctx, c, "SCRIPT", "LOAD", string(floorScript))
	require.NoError(b, err)
	const perCall = 32
	var n atomic.Int64
	floorCall := func(mode string) error {
		i := n.Add(perCall)
		args := []string{"EVALSHA", sha.(string), "2", prefix + "floor:pos", prefix + "stream:floor", prefix + "dcb:ix:floor:", mode}
		for k := i - perCall + 1; k <= i; k++ {
			g, p := "game=G"+strconv.FormatInt(k%100, 10), "player=Q"+strconv.FormatInt(k, 10)
			args = append(args, g, p, g+","+p)
		}
		_, err := rawcmd.Do(ctx, c, args...)
		return err
	}
	plainOp := func() error { _, err := plain.Append(ctx, benchPayload, nil); return err }
	for _, mode := range []string{"tags2", "cond2"} {
		b.Run(mode+"/ratio", func(b *testing.B) {
			compare(b, appendRound, "ops/s",
				echomqtest.Side{Name: "floor", Run: func(n int) error {
					return echomqtest.FanOut(2, n/perCall, func() error { return floorCall(map[string]string{"tags2": "", "cond2": "cond"}[mode]) })
				}},
				echomqtest.Side{Name: "plain", Run: func(n int) error { return fanOut(n, plainOp) }})
		})
	}
}
