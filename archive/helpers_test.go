package archive_test

import (
	"context"
	"io"
	"iter"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/retention"
)

// newClient connects to the shared test server.
func newClient(t testing.TB, opts ...func(*echomq.Config)) *echomq.Client {
	t.Helper()
	cfg := echomq.Config{URL: echomqtest.Shared(t).URL(), NodeID: new(7), Notice: io.Discard}
	for _, o := range opts {
		o(&cfg)
	}
	c, err := echomq.Connect(context.Background(), &cfg)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// storeKinds are the stores every archive behaviour is checked on: the
// local directory with its flock, and the same directory seen as a store
// without a Locker (as an object store is), so the engine lease guards the
// stream. The S3 store itself is proven by the store conformance suite and
// its outage test in module archive/s3store.
var storeKinds = []string{"fs", "lease"}

// leaseOnly hides the Locker of the store it wraps (and keeps its
// Deleter).
type leaseOnly struct{ archive.Store }

func (s leaseOnly) Delete(ctx context.Context, name string) error {
	return s.Store.(archive.Deleter).Delete(ctx, name)
}

// newStore returns an empty store of the kind.
func newStore(t testing.TB, kind string) archive.Store {
	t.Helper()
	switch kind {
	case "fs":
		s, err := fsstore.New(t.TempDir())
		require.NoError(t, err)
		return s
	case "lease":
		return leaseOnly{newStore(t, "fs")}
	}
	t.Fatalf("unknown store kind %q", kind)
	return nil
}

func newArchiver(t testing.TB, c *echomq.Client, s archive.Store, cfg *archive.Config) *archive.Archiver {
	t.Helper()
	if cfg == nil {
		cfg = &archive.Config{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.LockTTL == 0 {
		cfg.LockTTL = 2 * time.Second
	}
	a, err := archive.New(c, s, cfg)
	require.NoError(t, err)
	return a
}

// fixedClock is a settable clock.
type fixedClock struct{ ms atomic.Int64 }

func newFixedClock(t time.Time) *fixedClock {
	c := &fixedClock{}
	c.ms.Store(t.UnixMilli())
	return c
}

func (c *fixedClock) Now() time.Time      { return time.UnixMilli(c.ms.Load()).UTC() }
func (c *fixedClock) Set(t time.Time)     { c.ms.Store(t.UnixMilli()) }
func (c *fixedClock) Add(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// appendN appends n events {"n": i, "k": i%3} and returns their ids.
func appendN(t testing.TB, s *echomq.Stream, from, n int) []echomq.ID {
	t.Helper()
	recs := make([]echomq.Fields, n)
	for i := range recs {
		recs[i] = echomq.F("n", strconv.Itoa(from+i), "k", strconv.Itoa((from+i)%3), "blob", "\x00\xffbinary")
	}
	ids, err := s.AppendBatch(context.Background(), recs, nil)
	require.NoError(t, err)
	return ids
}

// appendAt appends one event minted at t (through AppendID with an id from
// m, whose clock is clk) and returns its id.
func appendAt(t testing.TB, s *echomq.Stream, clk *fixedClock, m *echomq.Minter, at time.Time, n int) echomq.ID {
	t.Helper()
	clk.Set(at)
	id := m.NextID(echomq.BrandEvent)
	require.NoError(t, s.AppendID(context.Background(), id, echomq.F("n", strconv.Itoa(n))))
	return id
}

func ids(evs []archive.Event) []echomq.ID {
	out := make([]echomq.ID, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}

func liveIDs(t testing.TB, s *echomq.Stream) []echomq.ID {
	t.Helper()
	evs, err := s.Read(context.Background(), echomq.All, nil)
	require.NoError(t, err)
	out := make([]echomq.ID, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}

func keep(n int64) retention.Rule { return retention.MaxLen(n) }

// iterPull is iter.Pull2.
func iterPull[K, V any](seq iter.Seq2[K, V]) (func() (K, V, bool), func()) { return iter.Pull2(seq) }
