package echomq_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// benchRoom is benchPayload as a typed value: the same three fields.
type benchRoom struct {
	Room   string `json:"room"`
	Player string `json:"player"`
	Points int    `json:"points"`
}

var benchRoomValue = benchRoom{Room: "lobby-7", Player: "PLR0KHTOWnGLuC", Points: 120}

// BenchmarkTypedAppend compares a typed JSON append (fields layout) with
// the untyped append of the same fields, one goroutine each, round by
// round; x_vs_typed is the typed append's cost relative to the untyped one
// (target at most 1.3).
func BenchmarkTypedAppend(b *testing.B) {
	e := newBenchEnv(b)
	s := e.emq.Stream(e.q, "typed-append")
	tv := echomq.NewTyped[benchRoom](s, nil, nil)
	compareRounds(b, 256, "appends/s",
		side{name: "untyped", run: func(n int) error {
			return repeat(n, func() error { _, err := s.Append(ctx, benchPayload, nil); return err })
		}},
		side{name: "typed", run: func(n int) error {
			return repeat(n, func() error { _, err := tv.Append(ctx, benchRoomValue, nil); return err })
		}},
	)
}

// BenchmarkTypedRead compares reading a 1 000-entry page decoded into
// typed values with reading the same page untyped; x_vs_typed is the typed
// read's cost relative to the untyped one (target at most 1.3).
func BenchmarkTypedRead(b *testing.B) {
	e := newBenchEnv(b)
	s := e.emq.Stream(e.q, "typed-read")
	tv := echomq.NewTyped[benchRoom](s, nil, nil)
	recs := make([]echomq.Fields, benchPage)
	for i := range recs {
		recs[i] = benchPayload
	}
	_, err := s.AppendBatch(ctx, recs, nil)
	require.NoError(b, err)
	opts := &echomq.ReadOpts{Count: benchPage}
	compareRounds(b, benchPage*readRound, "events/s",
		side{name: "untyped", run: func(int) error {
			return repeat(readRound, func() error {
				evs, err := s.Read(ctx, echomq.All, opts)
				if err == nil && len(evs) != benchPage {
					err = errors.New("short page")
				}
				return err
			})
		}},
		side{name: "typed", run: func(int) error {
			return repeat(readRound, func() error {
				evs, err := tv.Read(ctx, echomq.All, opts)
				if err == nil && (len(evs) != benchPage || evs[0].Value != benchRoomValue) {
					err = errors.New("short or wrong page")
				}
				return err
			})
		}},
	)
}

// BenchmarkSetFollow compares one merged follower of 20 streams with 20
// single-stream followers running side by side, each reading its stream of
// setFollowN stored entries from the head; x_vs_singles is the singles'
// time over the merged follower's, so the merged follower delivers
// x_vs_singles times the sum of the 20 single follows (target at least 0.8).
func BenchmarkSetFollow(b *testing.B) {
	const streams, perStream = 20, 2000
	e := newBenchEnv(b)
	names := streamNames("f", streams)
	recs := make([]echomq.Fields, perStream)
	for i := range recs {
		recs[i] = benchPayload
	}
	for _, n := range names {
		_, err := e.emq.Stream(e.q, n).AppendBatch(ctx, recs, nil)
		require.NoError(b, err)
	}
	set := e.emq.Streams(e.q, names...)
	head := echomq.Inclusive(echomq.EntryID{})
	compareRounds(b, streams*perStream, "events/s",
		side{name: "merged", run: func(n int) error {
			f, err := set.Follower(&echomq.SetFollowOpts{Start: echomq.StartHead})
			if err != nil {
				return err
			}
			fctx, cancel := context.WithCancel(ctx)
			defer cancel()
			got := 0
			for _, err := range f.Follow(fctx) {
				if err != nil {
					return err
				}
				if got++; got == n {
					break
				}
			}
			return nil
		}},
		side{name: "singles", run: func(int) error {
			var wg sync.WaitGroup
			errs := make([]error, streams)
			for i, name := range names {
				wg.Go(func() {
					fctx, cancel := context.WithCancel(ctx)
					defer cancel()
					got := 0
					for _, err := range e.emq.Stream(e.q, name).Follow(fctx, &echomq.FollowOpts{From: head}) {
						if err != nil {
							errs[i] = err
							return
						}
						if got++; got == perStream {
							return
						}
					}
				})
			}
			wg.Wait()
			return errors.Join(errs...)
		}},
	)
}
