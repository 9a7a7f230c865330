package faultmatrix

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// The set rows read two streams of the cell's queue as one: the consumer a
// named set, the follower a prefix set (so its SCAN discovery meets the
// fault too). The producer spreads the items over both.
var setStreams = []string{"ev0", "ev1"}

// produceSet appends item n to stream n mod 2, each retried under its
// idempotency key until acknowledged.
func produceSet(c *cell, ctx context.Context) {
	streams := make([]*echomq.Stream, len(setStreams))
	for i, name := range setStreams {
		streams[i] = c.direct.Stream(c.queue, name)
	}
	c.produceWith(ctx, func(ctx context.Context, n string) error {
		_, err := streams[atoi(n)%len(streams)].Append(ctx, echomq.Fields{"n", n}, &echomq.AppendOpts{Key: "p-" + n})
		return err
	})
}

func startSetConsumer(c *cell, ctx context.Context) func() {
	cl := c.client(echomq.Config{})
	sc, err := cl.SetConsumer(&echomq.SetConsumerConfig{
		Set: cl.Streams(c.queue, setStreams...), Group: "g", Start: echomq.StartHead, Beat: 500 * time.Millisecond,
		Logger: c.logger(),
		Handle: func(_ context.Context, d echomq.Delivery) error { c.handled(d.Fields[1]); return nil },
	})
	require.NoError(c.t, err)
	require.NoError(c.t, sc.Start(ctx))
	c.watchExit(sc.Stopped())
	return func() {
		sctx, cancel := stopCtx()
		defer cancel()
		require.NoError(c.t, sc.Stop(sctx))
		st := sc.Stats()
		c.note = "acked " + strconv.FormatInt(st.Acked, 10) + ", reclaimed " + strconv.FormatInt(st.Reclaimed, 10) +
			", late " + strconv.FormatInt(st.Late, 10)
	}
}

// startSetFollower follows the prefix set from the head of every stream:
// each item once, in entry-id order across the streams (an item out of
// order is counted in the note, and must be one the follower counts as
// late).
func startSetFollower(c *cell, ctx context.Context) func() {
	f, err := c.client(echomq.Config{}).StreamsPrefix(c.queue, "ev").Follower(
		&echomq.SetFollowOpts{Start: echomq.StartHead, Block: time.Second})
	require.NoError(c.t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var last echomq.EntryID
		disorder := int64(0)
		for ev, err := range f.Follow(ctx) {
			if err != nil {
				c.call(0, err)
				if !errors.Is(err, echomq.ErrUnavailable) {
					break
				}
				continue
			}
			if ev.Entry.Compare(last) < 0 {
				disorder++
			} else {
				last = ev.Entry
			}
			c.handled(ev.Fields[1])
		}
		if ctx.Err() == nil {
			c.exits.Add(1) // the iteration ended on its own
		}
		st := f.Stats()
		c.note = "streams " + strconv.Itoa(st.Streams) + ", late " + strconv.FormatInt(st.Late, 10) +
			", out of order " + strconv.FormatInt(disorder, 10)
		if disorder > st.Late {
			c.t.Errorf("SetFollower: %d events out of order, %d counted late", disorder, st.Late)
		}
	}()
	return func() { echomqtest.Recv(c.t, done, time.Minute, "the component to stop") } // ctx ended before stop is called
}
