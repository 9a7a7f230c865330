package projection

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) { echomqtest.MainWithLeakCheck(m) }

// testBundle is what an integration test works with: a client on the
// shared server and a queue of its own.
type testBundle struct {
	ctx    context.Context
	client *echomq.Client
	queue  string
	url    string
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	srv := echomqtest.Shared(t)
	return &testBundle{ctx: t.Context(), client: connect(t, srv.URL(), 1), queue: echomqtest.Queue(t), url: srv.URL()}
}

// connect opens a client with a fixed node id, closed with the test.
func connect(t testing.TB, url string, node int) *echomq.Client {
	t.Helper()
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: url, NodeID: new(node)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func (b *testBundle) stream(name string) *echomq.Stream { return b.client.Stream(b.queue, name) }

// evtAt returns the EVT id minted at ms after base by node with seq.
func evtAt(t testing.TB, base time.Time, ms int64, node, seq int) echomq.ID {
	t.Helper()
	// a snowflake is 41 bits of ms since 2024-01-01, 10 of node, 12 of seq
	sf := echomq.Snowflake((base.UnixMilli()-1704067200000+ms)<<22 | int64(node)<<12 | int64(seq))
	return echomq.MustID(echomq.BrandEvent, sf)
}

// readAll reads a whole stream.
func readAll(t testing.TB, ctx context.Context, s *echomq.Stream) []echomq.Event {
	t.Helper()
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	return evs
}

// collect is a projection that records every event it folds, in order.
func collect() Projection[[]Event] {
	return Projection[[]Event]{Name: "collect", Version: 1, Apply: func(s []Event, ev Event) []Event {
		ev.src = 0 // positions are internal; compare what callers see
		return append(s, ev)
	}}
}

// memStore is a Store in memory that keeps every snapshot saved.
type memStore struct {
	mu    sync.Mutex
	cur   []byte
	saves [][]byte
}

func (m *memStore) Load(context.Context) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cur, m.cur != nil, nil
}

func (m *memStore) Save(_ context.Context, b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cur = append([]byte(nil), b...)
	m.saves = append(m.saves, m.cur)
	return nil
}

func (m *memStore) all() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.saves...)
}
