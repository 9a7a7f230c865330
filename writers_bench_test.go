package echomq_test

import (
	"io"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// fanOutK runs n calls of op(g) over k goroutines (echomqtest.FanOutEach).
func fanOutK(n, k int, op func(g int) error) error { return echomqtest.FanOutEach(k, n, op) }

// BenchmarkWriters compares 4 writers (4 clients with distinct node ids,
// each appending serially from one goroutine) on one stream with one
// client appending from 4 goroutines (target: ≥ 0.8×), and reports the
// writers' extra round trips (refused plain XADDs) per append. The side
// four_own_streams (the same 4 clients, each on a stream of its own, so
// never contended) separates the cost of 4 serial connections from the
// cost of contention.
func BenchmarkWriters(b *testing.B) {
	e := newBenchEnv(b)
	writers := make([]*echomq.Stream, 4)
	var clients []*echomq.Client
	for i := range writers {
		c, err := echomq.Connect(ctx, &echomq.Config{URL: e.url, NodeID: new(900 - 100*i), Notice: io.Discard})
		require.NoError(b, err)
		b.Cleanup(func() { require.NoError(b, c.Close()) })
		clients = append(clients, c)
		writers[i] = c.Stream(e.q, "four")
	}
	one := e.emq.Stream(e.q, "one")
	delFour := func() error { return e.del(writers[0].Key()) }
	delOne := func() error { return e.del(one.Key()) }
	b.Run("ratio", func(b *testing.B) {
		before := sumStats(clients)
		appends := compareRounds(b, appendRound/4, "ops/s",
			side{"four_writers", delFour, func(n int) error {
				return fanOutK(n, 4, func(g int) error { _, err := writers[g].Append(ctx, benchPayload, nil); return err })
			}},
			side{"four_own_streams", func() error { return e.del(writers[0].Key() + "-own") }, func(n int) error {
				return fanOutK(n, 4, func(g int) error {
					_, err := clients[g].Stream(e.q, "four-own-"+strconv.Itoa(g)).Append(ctx, benchPayload, nil)
					return err
				})
			}},
			side{"one_writer_4g", delOne, func(n int) error {
				return fanOutK(n, 4, func(int) error { _, err := one.Append(ctx, benchPayload, nil); return err })
			}})
		after := sumStats(clients)
		b.ReportMetric(float64(after.Refused-before.Refused)/float64(appends), "four_extra_rt/op")
		b.ReportMetric(float64(after.Arbitrated-before.Arbitrated)/float64(appends), "four_arbitrated/op")
	})
}

func sumStats(cs []*echomq.Client) echomq.AppendStats {
	var s echomq.AppendStats
	for _, c := range cs {
		st := echomq.AppendStatsOf(c)
		s.Refused += st.Refused
		s.Arbitrated += st.Arbitrated
		s.Scripts += st.Scripts
	}
	return s
}

// BenchmarkAppendKey compares Append with an idempotency key (a fresh key
// per append: one script with a GET and a SET PX) with a plain Append, from
// 64 goroutines and from one goroutine (target: ≥ 0.7×).
func BenchmarkAppendKey(b *testing.B) {
	e := newBenchEnv(b)
	s := e.emq.Stream(e.q, "keyed")
	plain := e.emq.Stream(e.q, "plain")
	var n atomic.Int64
	keyed := func() error {
		_, err := s.Append(ctx, benchPayload, &echomq.AppendOpts{Key: "k" + strconv.FormatInt(n.Add(1), 10)})
		return err
	}
	b.Run("ratio", func(b *testing.B) {
		compareRounds(b, appendRound, "ops/s",
			side{"keyed", func() error { return e.del(s.Key()) }, func(n int) error { return fanOut(n, keyed) }},
			side{"plain", func() error { return e.del(plain.Key()) }, func(n int) error {
				return fanOut(n, func() error { _, err := plain.Append(ctx, benchPayload, nil); return err })
			}})
	})
	b.Run("serial/ratio", func(b *testing.B) {
		compareRounds(b, appendRound/16, "ops/s",
			side{"keyed", func() error { return e.del(s.Key()) }, func(n int) error { return repeat(n, keyed) }},
			side{"plain", func() error { return e.del(plain.Key()) }, func(n int) error {
				return repeat(n, func() error { _, err := plain.Append(ctx, benchPayload, nil); return err })
			}})
	})
}
