package dcb_test

import (
	"io"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/echomqtest"
)

// The dcb benchmarks compare, in the same run and on one private engine,
// tagged and conditional appends with plain Appends (64 goroutines each),
// and a query read with reading and filtering the streams it covers. The
// ratio sub-benchmarks alternate the sides round by round
// (echomqtest.CompareRounds); x_vs_plain and x_vs_filter are the numbers
// BENCHMARKS.md holds against the targets.

const (
	benchWriters = 64
	appendRound  = 2048
)

var benchPayload = echomq.F("room", "lobby-7", "player", "PLR0KHTOWnGLuC", "points", "120")

func benchStore(b *testing.B) (*dcb.Store, *echomq.Client) {
	b.Helper()
	url := echomqtest.Start(b).URL()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: url, NodeID: new(1), Notice: io.Discard, CallTimeout: 10 * time.Second})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, c.Close()) })
	s, err := dcb.New(c, echomqtest.Queue(b))
	require.NoError(b, err)
	return s, c
}

func fanOut(n int, op func() error) error { return echomqtest.FanOut(benchWriters, n, op) }

// BenchmarkAppendTagged compares an Append with two tags (target ≥ 0.7×)
// and a conditional append whose condition is a two-item query (target ≥
// 0.5×) with a plain Append, from 64 goroutines.
func BenchmarkAppendTagged(b *testing.B) {
	s, c := benchStore(b)
	plain := c.Stream(s.Queue(), "plain")
	tagged := c.Stream(s.Queue(), "tagged")
	// 100 open games, each with a few joins, for the conditions to scan.
	for g := range 100 {
		game := dcb.Tags("game", "G"+strconv.Itoa(g))
		evs := []dcb.Append{{Stream: "game-opened", Tags: game, Fields: benchPayload}}
		for p := range 5 {
			evs = append(evs, dcb.Append{Stream: "player-joined", Tags: append(dcb.Tags("player", "P"+strconv.Itoa(p)), game...), Fields: benchPayload})
		}
		_, err := s.Append(ctx, evs, nil)
		require.NoError(b, err)
	}
	after, err := s.Head(ctx)
	require.NoError(b, err)
	var n atomic.Int64
	plainOp := func() error { _, err := plain.Append(ctx, benchPayload, nil); return err }
	taggedOp := func() error {
		i := n.Add(1)
		_, err := tagged.Append(ctx, benchPayload, &echomq.AppendOpts{Tags: dcb.Tags("game", "G"+strconv.FormatInt(i%100, 10), "player", "Q"+strconv.FormatInt(i, 10))})
		return err
	}
	condOp := func() error {
		i := n.Add(1)
		game, player := dcb.Tags("game", "G"+strconv.FormatInt(i%100, 10)), dcb.Tags("player", "Q"+strconv.FormatInt(i, 10))
		q := dcb.Query{
			{Types: []string{"game-opened", "game-closed"}, Tags: game},
			{Types: []string{"player-joined"}, Tags: append(player, game...)},
		}
		_, err := s.Append(ctx, []dcb.Append{{Stream: "player-joined", Tags: append(player, game...), Fields: benchPayload}}, &dcb.Condition{Query: q, After: after})
		return err
	}
	b.Run("tags2/ratio", func(b *testing.B) {
		compare(b, appendRound, "ops/s",
			echomqtest.Side{Name: "tagged", Run: func(n int) error { return fanOut(n, taggedOp) }},
			echomqtest.Side{Name: "plain", Run: func(n int) error { return fanOut(n, plainOp) }})
	})
	b.Run("cond2/ratio", func(b *testing.B) {
		compare(b, appendRound, "ops/s",
			echomqtest.Side{Name: "conditional", Run: func(n int) error { return fanOut(n, condOp) }},
			echomqtest.Side{Name: "plain", Run: func(n int) error { return fanOut(n, plainOp) }})
	})
}

func compare(b *testing.B, perRound int, unit string, sides ...echomqtest.Side) {
	b.Helper()
	echomqtest.CompareRounds(b, perRound, unit, sides...)
}

// BenchmarkQueryRead compares reading the 1,000 events matching a query
// among 100,000 tagged events in 20 streams with reading those streams and
// filtering them (target ≥ 10×).
func BenchmarkQueryRead(b *testing.B) {
	s, c := benchStore(b)
	const streams, total, every = 20, 100_000, 100
	batch := make([]dcb.Append, 0, 250)
	for i := range total {
		game := "G" + strconv.Itoa(i%997)
		if i%every == 0 {
			game = "TARGET"
		}
		batch = append(batch, dcb.Append{Stream: "s" + strconv.Itoa(i%streams), Tags: dcb.Tags("game", game, "player", "P"+strconv.Itoa(i%1000)), Fields: benchPayload})
		if len(batch) == cap(batch) {
			_, err := s.Append(ctx, batch, nil)
			require.NoError(b, err)
			batch = batch[:0]
		}
	}
	q := dcb.Query{{Tags: []string{"game=TARGET"}}}
	query := func() error {
		evs, _, err := s.ReadAll(ctx, q, 0)
		if err == nil && len(evs) != total/every {
			b.Fatalf("query read %d events", len(evs))
		}
		return err
	}
	filter := func() error {
		n := 0
		for i := range streams {
			evs, err := c.Stream(s.Queue(), "s"+strconv.Itoa(i)).Read(ctx, echomq.All, nil)
			if err != nil {
				return err
			}
			for _, e := range evs {
				for _, g := range e.Tags {
					if g == "game=TARGET" {
						n++
					}
				}
			}
		}
		if n != total/every {
			b.Fatalf("filter found %d events", n)
		}
		return nil
	}
	b.Run("ratio", func(b *testing.B) {
		compare(b, 1, "reads/s",
			echomqtest.Side{Name: "query", Run: func(n int) error { return echomqtest.Repeat(n, query) }},
			echomqtest.Side{Name: "filter", Run: func(n int) error { return echomqtest.Repeat(n, filter) }})
	})
}
