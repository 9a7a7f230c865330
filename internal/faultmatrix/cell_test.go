package faultmatrix

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/outage"
)

// cell is one component under one fault: an engine (persistent, appendfsync
// always) of its own, a proxy the component's client dials, a producer on a
// direct client, and the tallies the matrix reports.
type cell struct {
	t     *testing.T
	comp  component
	srv   *echomqtest.Server
	proxy *echomqtest.Proxy
	queue string
	// direct talks to the engine itself: the producer and the checks.
	direct *echomq.Client
	logs   *logCount

	acked items // what the producer had acknowledged
	seen  items // what the component handled

	healedAt  atomic.Int64 // unix nanos when the fault ended; 0 before
	recovered atomic.Int64 // unix nanos of the first success after it
	exits     atomic.Int64 // runs that ended before the test stopped them
	permanent atomic.Int64 // calls that failed with a permanent error
	slowest   atomic.Int64 // longest single call of a read-style cell (nanos)
	note      string       // component-specific remark for the table

	attempts echomqtest.ProxyCounts // client attempts during the fault

	stopping      atomic.Bool    // the test is stopping the component
	producedUntil atomic.Int64   // unix nanos when the producer stopped
	lastClean     atomic.Int64   // unix nanos of the last sweep without failure
	store         archive.Store  // the archiver's
	reader        *echomq.Stream // the reads' stream, on the component's client
}

func newCell(t *testing.T, comp component) *cell {
	srv := echomqtest.StartPersistent(t)
	c := &cell{
		t: t, comp: comp, srv: srv, proxy: echomqtest.NewProxy(t, srv.Addr()), queue: echomqtest.Queue(t) + "-" + slug(comp.name),
		logs: &logCount{},
	}
	c.direct = c.connect(srv.URL(), echomq.Config{NodeID: new(1), Logger: quiet()})
	return c
}

// connect opens a client closed with the test.
func (c *cell) connect(url string, cfg echomq.Config) *echomq.Client {
	cfg.URL = url
	cl, err := echomq.Connect(context.Background(), &cfg)
	require.NoError(c.t, err)
	c.t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// client opens the component's client, through the proxy, logging to the
// cell's counter.
func (c *cell) client(cfg echomq.Config) *echomq.Client {
	if cfg.NodeID == nil && cfg.NodeLeaseTTL == 0 {
		cfg.NodeID = new(2)
	}
	if cfg.Logger == nil {
		cfg.Logger = c.logger()
	}
	return c.connect(c.proxy.URL(), cfg)
}

func (c *cell) logger() *slog.Logger { return slog.New(c.logs) }

// handled records that the component handled item n, and the recovery
// when n was acknowledged after the fault ended.
func (c *cell) handled(n string) {
	c.seen.add(n)
	if at, ok := c.acked.at(n); ok {
		if h := c.healedAt.Load(); h != 0 && at.UnixNano() > h {
			c.ok()
		}
	}
}

// ok records a success of the component; the first after the fault ended
// is its recovery.
func (c *cell) ok() {
	if h := c.healedAt.Load(); h != 0 {
		c.recovered.CompareAndSwap(0, time.Now().UnixNano())
	}
}

// call records one call of a read-style cell: how long it took, and
// whether its error was a permanent one (a transient one is what an outage
// must look like).
func (c *cell) call(took time.Duration, err error) {
	for {
		cur := c.slowest.Load()
		if int64(took) <= cur || c.slowest.CompareAndSwap(cur, int64(took)) {
			break
		}
	}
	if err != nil && !errors.Is(err, echomq.ErrUnavailable) && !errors.Is(err, context.Canceled) {
		c.permanent.Add(1)
		c.t.Errorf("%s: a call failed with a permanent error: %v", c.comp.name, err)
	}
}

// watchExit counts a run that ends before the test stops it.
func (c *cell) watchExit(stopped <-chan struct{}) {
	go func() {
		<-stopped // the run's end, whenever it comes
		if !c.stopping.Load() {
			c.exits.Add(1)
		}
	}()
}

// produce appends items to stream until ctx ends, one every 50ms, each
// retried with its idempotency key until acknowledged, so each is in the
// stream once whatever the fault did to the attempts.
func (c *cell) produce(ctx context.Context, stream string) {
	s := c.direct.Stream(c.queue, stream)
	c.produceWith(ctx, func(ctx context.Context, n string) error {
		_, err := s.Append(ctx, echomq.Fields{"n", n}, &echomq.AppendOpts{Key: "p-" + n})
		return err
	})
}

// produceWith produces items with put until ctx ends.
func (c *cell) produceWith(ctx context.Context, put func(ctx context.Context, n string) error) {
	for i := 0; ctx.Err() == nil; i++ {
		n := strconv.Itoa(i)
		for {
			err := put(context.WithoutCancel(ctx), n)
			if err == nil {
				c.acked.add(n)
				break
			}
			if !errors.Is(err, echomq.ErrUnavailable) {
				c.t.Errorf("%s: the producer failed: %v", c.comp.name, err)
				return
			}
			if !outage.Sleep(ctx, 100*time.Millisecond) {
				return // the last attempt's outcome is unknown: not counted
			}
		}
		if !outage.Sleep(ctx, 50*time.Millisecond) {
			return
		}
	}
}

// items is a set of item names with a count and the time each was first
// added.
type items struct {
	mu    sync.Mutex
	first map[string]time.Time
	count map[string]int
}

func (s *items) add(n string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil {
		s.first, s.count = map[string]time.Time{}, map[string]int{}
	}
	if _, ok := s.first[n]; !ok {
		s.first[n] = time.Now()
	}
	s.count[n]++
}

func (s *items) at(n string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.first[n]
	return t, ok
}

func (s *items) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.first))
	for n := range s.first {
		out = append(out, n)
	}
	return out
}

// missing returns how many of want s lacks.
func (s *items) missing(want []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range want {
		if _, ok := s.first[w]; !ok {
			n++
		}
	}
	return n
}

// repeats returns the adds beyond the first of each item.
func (s *items) repeats() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.count {
		n += c - 1
	}
	return n
}

// logCount is a slog handler that counts the outage lines, the recovery
// lines and the errors it receives.
type logCount struct {
	downs, ups, errs atomic.Int64
	mu               sync.Mutex
	last             []string // the last few warnings and errors, for failure messages
}

func (h *logCount) Enabled(context.Context, slog.Level) bool { return true }

func (h *logCount) Handle(_ context.Context, r slog.Record) error {
	switch {
	case strings.HasSuffix(r.Message, outage.DownMsg):
		h.downs.Add(1)
	case strings.HasSuffix(r.Message, outage.UpMsg):
		h.ups.Add(1)
	case r.Level >= slog.LevelWarn:
		if r.Level >= slog.LevelError {
			h.errs.Add(1)
		}
		line := r.Message
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "err" {
				line += ": " + a.Value.String()
			}
			return true
		})
		h.mu.Lock()
		h.last = append(h.last, line)
		if len(h.last) > 5 {
			h.last = h.last[1:]
		}
		h.mu.Unlock()
	}
	return nil
}

func (h *logCount) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logCount) WithGroup(string) slog.Handler      { return h }

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// slug turns a component's name into a queue name suffix.
func slug(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, name)
}
