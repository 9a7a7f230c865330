package watermill_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// restartVerb re-executes the test binary as the suite's
// RestartServiceCommand: "<test binary> restart-engine <addr>" asks the
// test process listening on addr to restart its engine and waits for it.
const restartVerb = "restart-engine"

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == restartVerb {
		os.Exit(askRestart(os.Args[2]))
	}
	echomqtest.MainWithLeakCheck(m,
		// Goroutines of the suite itself that never end: the multiplied
		// subscriber forwards into a channel nobody reads once a test has
		// what it needs, and the original TestReconnect (run by the stress
		// test) never closes the channel its collector ranges over.
		goleak.IgnoreAnyFunction("github.com/ThreeDotsLabs/watermill/pubsub/tests.TestReconnect.func2"),
		// valkey-go's cluster client sleeps out a topology refresh after
		// Close (the root package's tests ignore it too).
		goleak.IgnoreAnyFunction("github.com/valkey-io/valkey-go.(*clusterClient)._refresh.func2"),
		goleak.IgnoreAnyFunction("github.com/ThreeDotsLabs/watermill/internal/subscriber.(*multiplier).Subscribe.func2"),
		goleak.IgnoreAnyFunction("github.com/ThreeDotsLabs/watermill/internal/subscriber.(*multiplier).Subscribe.func3"),
		// The benchmarks' baseline, watermill-redisstream, leaves its
		// reader sleeping out a 500 ms backoff after its subscriber is
		// closed; on a loaded machine the leak check can run before it
		// wakes. It is the peer library's goroutine, not the adapter's.
		goleak.IgnoreAnyFunction("github.com/ThreeDotsLabs/watermill-redisstream/pkg/redisstream.(*Subscriber).read"),
	)
}

// askRestart is the child side of the restart command.
func askRestart(addr string) int {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "restart-engine:", err)
		return 1
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(conn, "restart\n"); err != nil {
		fmt.Fprintln(os.Stderr, "restart-engine:", err)
		return 1
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ok" {
		fmt.Fprintln(os.Stderr, "restart-engine: failed:", strings.TrimSpace(line), err)
		return 1
	}
	return 0
}

// durableServer starts a private redis-server whose data survives a
// SIGKILL: every write is in the append-only file, fsynced before the
// reply (appendfsync always), and the restart reloads it.
func durableServer(t testing.TB) *echomqtest.Server {
	return echomqtest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
}

// restarter serves the restart command: each request kills the engine
// with SIGKILL and starts it again on the same port and data directory.
type restarter struct {
	srv  *echomqtest.Server
	ln   net.Listener
	mu   sync.Mutex // one restart at a time
	done sync.WaitGroup
	n    atomic.Int32
	tb   testing.TB
}

// newRestarter listens on loopback and returns the restarter and the
// command that triggers it. It stops at tb's cleanup.
func newRestarter(tb testing.TB, srv *echomqtest.Server) (*restarter, []string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	r := &restarter{srv: srv, ln: ln, tb: tb}
	r.done.Go(r.serve)
	tb.Cleanup(func() { _ = ln.Close(); r.done.Wait() })
	return r, []string{exe, restartVerb, ln.Addr().String()}
}

func (r *restarter) serve() {
	for {
		conn, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		r.done.Go(func() {
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(time.Minute))
			if _, err := bufio.NewReader(conn).ReadString('\n'); err != nil {
				return
			}
			if err := r.restart(); err != nil {
				r.tb.Errorf("engine restart: %v", err)
				_, _ = fmt.Fprintf(conn, "error %v\n", err)
				return
			}
			_, _ = io.WriteString(conn, "ok\n")
		})
	}
}

func (r *restarter) restart() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.srv.Kill(); err != nil {
		return err
	}
	tb := &softTB{TB: r.tb}
	r.srv.Restart(tb)
	if tb.err != nil {
		return tb.err
	}
	r.n.Add(1)
	return nil
}

// softTB turns Fatal into a recorded error, so a restart that runs outside
// the test's goroutine never calls runtime.Goexit there.
type softTB struct {
	testing.TB
	err error
}

func (s *softTB) Helper()                      {}
func (s *softTB) Fatal(args ...any)            { s.err = fmt.Errorf("%s", fmt.Sprint(args...)) }
func (s *softTB) Fatalf(f string, args ...any) { s.err = fmt.Errorf(f, args...) }

var discard = slog.New(slog.DiscardHandler)

// connect opens a client on url, closed at tb's cleanup.
func connect(tb testing.TB, url string) *echomq.Client {
	tb.Helper()
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: url, Logger: discard})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}
