package echomq_test

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valkey-io/valkey-go"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// BenchmarkDurableAppend measures what the durable append costs on a
// master with one replica, against a plain Append in the same run: serial
// appends from one goroutine, and 64 goroutines at once. x_vs_durable is
// how many times faster the plain append is.
//
//	go test -run '^$' -bench DurableAppend -benchtime 2s -count 3 .
func BenchmarkDurableAppend(b *testing.B) {
	master := echomqtest.Start(b)
	echomqtest.StartReplica(b, master)
	c, err := echomq.Connect(ctx, &echomq.Config{URL: master.URL(), NodeID: new(1), Notice: io.Discard, CallTimeout: benchCallTimeout})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, c.Close()) })
	q := echomqtest.Queue(b)
	plain, durable := c.Stream(q, "plain"), c.Stream(q, "durable")
	opts := &echomq.AppendOpts{Durable: echomq.Durability{Replicas: 1}}
	opt, err := valkey.ParseURL(master.URL())
	require.NoError(b, err)
	vk, err := valkey.NewClient(opt)
	require.NoError(b, err)
	b.Cleanup(vk.Close)
	del := func(s *echomq.Stream) func() error {
		return func() error { return vk.Do(ctx, vk.B().Del().Key(s.Key()).Build()).Error() }
	}
	appendPlain := func() error { _, err := plain.Append(ctx, benchPayload, nil); return err }
	appendDurable := func() error { _, err := durable.Append(ctx, benchPayload, opts); return err }
	b.Run("serial", func(b *testing.B) {
		compareRounds(b, appendRound/8, "ops/s",
			side{"plain", del(plain), func(n int) error { return repeat(n, appendPlain) }},
			side{"durable", del(durable), func(n int) error { return repeat(n, appendDurable) }})
	})
	b.Run("64g", func(b *testing.B) {
		compareRounds(b, appendRound, "ops/s",
			side{"plain", del(plain), func(n int) error { return fanOut(n, appendPlain) }},
			side{"durable", del(durable), func(n int) error { return fanOut(n, appendDurable) }})
	})
}
