package bench_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valkey-io/valkey-go"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) { echomqtest.Main(m) }

var (
	ctx        = context.Background()
	discardLog = slog.New(slog.DiscardHandler)
)

// benchPayload is the payload of every append, ours and the baselines'.
var benchPayload = echomq.F("room", "lobby-7", "player", "PLR0KHTOWnGLuC", "points", "120")

const benchWriters = 64 // goroutines of the parallel append comparison

type side = echomqtest.Side

func compareRounds(b *testing.B, perRound int, unit string, sides ...side) int {
	b.Helper()
	return echomqtest.CompareRounds(b, perRound, unit, sides...)
}

// benchEnv is one private redis-server, an EchoMQ client and a raw
// valkey-go client on it; addr is for the peers' own clients.
type benchEnv struct {
	emq  *echomq.Client
	vk   valkey.Client
	addr string
	q    string
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	srv := echomqtest.Start(b)
	emq := connect(b, srv.URL())
	opt, err := valkey.ParseURL(srv.URL())
	require.NoError(b, err)
	opt.DisableCache = true
	vk, err := valkey.NewClient(opt)
	require.NoError(b, err)
	b.Cleanup(vk.Close)
	return &benchEnv{emq: emq, vk: vk, addr: srv.Addr(), q: echomqtest.Queue(b)}
}

func connect(tb testing.TB, url string) *echomq.Client {
	tb.Helper()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: url, NodeID: new(1), Notice: io.Discard, Logger: discardLog})
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, c.Close()) })
	return c
}

func (e *benchEnv) del(key string) error {
	return e.vk.Do(ctx, e.vk.B().Del().Key(key).Build()).Error()
}
