package echomqtest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is one redis-server process listening on a free loopback port,
// started and owned by this package (or, for [Shared] with EMQ_TEST_ADDR set,
// an external server that this package only connects to).
//
// The methods of a Server are safe for concurrent use.
type Server struct {
	addr string // "127.0.0.1:PORT"
	url  string // "redis://127.0.0.1:PORT"
	port int

	bin     string   // redis-server binary
	dir     string   // working directory (--dir), holds the log
	logPath string   // stdout+stderr of the process
	args    []string // full command line (without the binary)
	bus     bool     // cluster node: port+busOffset is reserved too

	persistent bool // StartPersistent: the dataset survives Kill and Restart

	shared    bool // the package-wide shared server: only Main stops it
	external  bool // EMQ_TEST_ADDR: not ours, never stopped or killed
	removeDir bool // remove dir when stopped (shared servers)

	mu      sync.Mutex
	p       *proc // nil while not running
	paused  bool  // SIGSTOP sent and no SIGCONT since
	stopped bool  // Stop was called; the Server cannot be restarted
	// nodesConf is a cluster node's last whole nodes.conf, read at Kill:
	// SIGKILL can land while the engine rewrites the file (Valkey 8.0
	// then refuses to start: "corrupted cluster config file"), which is
	// the engine's own persistence, not what a fault test is about.
	nodesConf []byte
}

// Addr returns the server's address, "127.0.0.1:PORT".
func (s *Server) Addr() string { return s.addr }

// URL returns the server's URL, "redis://127.0.0.1:PORT", accepted by
// valkey-go's ParseURL and go-redis' ParseURL.
func (s *Server) URL() string { return s.url }

// Port returns the server's TCP port.
func (s *Server) Port() int { return s.port }

// LogPath returns the path of the file receiving the server's stdout and
// stderr ("" for an external server). It is useful in failure messages.
func (s *Server) LogPath() string { return s.logPath }

// Kill sends SIGKILL to the server process (for fault-injection tests) and
// waits until it is gone, so that the port is free when Kill returns. The
// dataset is lost unless the server was started by [StartPersistent] (then
// every acknowledged write is in its append-only file). [Server.Restart]
// starts the server again on the same port. A paused server is killed too. Kill returns an error if the server is not
// running, or if it is the shared or an external server (killing those would
// break every other test in the binary).
func (s *Server) Kill() error {
	if s.shared || s.external {
		return fmt.Errorf("echomqtest: refusing to kill the shared server %s; use Start for a private one", s.addr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil {
		return fmt.Errorf("echomqtest: server %s is not running", s.addr)
	}
	s.nodesConf = wholeNodesConf(s.clusterConfigFile())
	s.p.kill()
	s.p = nil
	s.paused = false
	return nil
}

// Restart starts the server again on the same port with the same command
// line, typically after [Server.Kill]. If the server is still running it is
// stopped gracefully first. The new process starts with an empty dataset,
// or, for a [StartPersistent] server, reloads its append-only file before it
// answers (cluster nodes reload their nodes.conf and so rejoin their cluster). It
// fails tb if the server cannot be started within 10 s, and cannot be used
// after [Server.Stop] or on the shared or an external server.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	if err := s.restart(); err != nil {
		tb.Fatal(err)
	}
}

func (s *Server) restart() error {
	if s.shared || s.external {
		return fmt.Errorf("echomqtest: refusing to restart the shared server %s; use Start for a private one", s.addr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return fmt.Errorf("echomqtest: Restart of stopped server %s", s.addr)
	}
	if s.p != nil {
		s.resumeLocked()
		s.p.stop()
		s.p = nil
	}
	var err error
	for try := range spawnTries {
		if try > 0 {
			// Someone else grabbed our port while the server was down;
			// it may be a short-lived socket, so wait a bit.
			time.Sleep(200 * time.Millisecond)
		}
		var p *proc
		p, err = spawnRedis(s.bin, s.dir, s.logPath, s.addr, s.args)
		if err == nil {
			s.p = p
			return nil
		}
		if strings.Contains(err.Error(), "corrupted cluster config file") && s.nodesConf != nil {
			// Start again from the whole file read before the kill: the
			// cluster bus brings the node's view up to date (a newer
			// epoch wins), as it would for an operator restoring it.
			if werr := os.WriteFile(s.clusterConfigFile(), s.nodesConf, 0o600); werr != nil {
				return errors.Join(err, werr)
			}
			s.nodesConf = nil
			continue
		}
		if !errors.Is(err, errPortInUse) {
			break
		}
	}
	return err
}

// Stop stops the server gracefully (SIGTERM, then SIGKILL after 5 s) and
// releases its port. It is idempotent. Servers from [Start] and
// [StartCluster] are stopped automatically by tb.Cleanup, so calling Stop is
// only needed to stop one early. Stop is a no-op on the shared server (which
// [Main] stops) and on an external server.
func (s *Server) Stop() {
	if s.shared || s.external {
		return
	}
	s.stop()
}

// stop is Stop without the shared-server guard.
func (s *Server) stop() {
	if s.external {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	if s.p != nil {
		s.resumeLocked() // a stopped process would not see SIGTERM
		s.p.stop()
		s.p = nil
	}
	if s.bus {
		releasePorts(s.port, s.port+busOffset)
	} else {
		releasePorts(s.port)
	}
	regMu.Lock()
	delete(regLive, s)
	regMu.Unlock()
	if s.removeDir {
		_ = os.RemoveAll(s.dir)
	}
}

// String returns the server's address.
func (s *Server) String() string { return s.addr }

// startServer spawns redis-server in dir on a fresh free port (retrying on
// port clashes) and registers it for Main's teardown.
func startServer(bin, dir string, bus bool, extra []string) (*Server, error) {
	var lastErr error
	for range spawnTries {
		port, err := pickPort(bus)
		if err != nil {
			return nil, err
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		s := &Server{
			addr:    addr,
			url:     "redis://" + addr,
			port:    port,
			bin:     bin,
			dir:     dir,
			logPath: filepath.Join(dir, "redis.log"),
			bus:     bus,
		}
		s.persistent = persistent(extra)
		s.args = append([]string{
			"--port", strconv.Itoa(port),
			"--bind", "127.0.0.1",
			"--save", "",
			"--appendonly", "no",
			"--dir", dir,
			"--daemonize", "no",
		}, extra...)
		p, err := spawnRedis(bin, dir, s.logPath, addr, s.args)
		if err != nil {
			if bus {
				releasePorts(port, port+busOffset)
			} else {
				releasePorts(port)
			}
			lastErr = err
			if errors.Is(err, errPortInUse) {
				continue
			}
			return nil, err
		}
		s.p = p
		regMu.Lock()
		regLive[s] = struct{}{}
		regMu.Unlock()
		return s, nil
	}
	return nil, fmt.Errorf("echomqtest: giving up after %d port clashes: %w", spawnTries, lastErr)
}

// Start spawns a private redis-server for this test and returns it; it is
// stopped by tb.Cleanup. args are appended to the command line, e.g.
// Start(t, "--maxmemory", "10mb"); they must not override --port, --bind,
// --dir or --daemonize.
//
// If redis-server cannot be found the test is skipped, or failed when
// CI=true. Start is safe to call from parallel tests.
func Start(tb testing.TB, args ...string) *Server {
	tb.Helper()
	bin := mustBinary(tb, serverBinary)
	s, err := startServer(bin, tb.TempDir(), false, args)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Stop)
	return s
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns the package-wide shared server, started once per test
// binary on first use and stopped by [Main] (so use Main or
// [MainWithLeakCheck] from TestMain when calling Shared). Tests sharing it
// must isolate their data by key/queue name (see [Queue]); it is never
// flushed. It cannot be killed, restarted or stopped by tests.
//
// If EMQ_TEST_ADDR is set (host:port), that server is used instead of
// spawning one; it must answer PING. If redis-server cannot be found the
// test is skipped, or failed when CI=true.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	shared.once.Do(func() { shared.srv, shared.err = startShared() })
	if shared.err != nil {
		skipOrFatal(tb, shared.err)
	}
	return shared.srv
}

func startShared() (*Server, error) {
	if addr := os.Getenv("EMQ_TEST_ADDR"); addr != "" {
		return externalServer(addr)
	}
	bin, err := serverBinary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "echomqtest-shared-")
	if err != nil {
		return nil, fmt.Errorf("echomqtest: %w", err)
	}
	s, err := startServer(bin, dir, false, nil)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	s.shared = true
	s.removeDir = true
	return s, nil
}

// externalServer wraps an already running server at addr.
func externalServer(addr string) (*Server, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("echomqtest: EMQ_TEST_ADDR=%q: want host:port: %w", addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("echomqtest: EMQ_TEST_ADDR=%q: bad port: %w", addr, err)
	}
	addr = net.JoinHostPort(host, portStr)
	if v, err := respDo(addr, probeTimeout, "PING"); err != nil || v != "PONG" {
		return nil, fmt.Errorf("echomqtest: EMQ_TEST_ADDR=%s does not answer PING: %v %w", addr, v, err)
	}
	return &Server{addr: addr, url: "redis://" + addr, port: port, external: true}, nil
}

// persistent reports whether extra turns the append-only file on (the last
// --appendonly wins, as on redis-server's command line).
func persistent(extra []string) bool {
	on := false
	for i := 0; i+1 < len(extra); i++ {
		if extra[i] == "--appendonly" {
			on = extra[i+1] == "yes"
		}
	}
	return on
}

// clusterConfigFile returns the --cluster-config-file of the command line,
// "" for a server that is no cluster node.
func (s *Server) clusterConfigFile() string {
	for i, a := range s.args {
		if a == "--cluster-config-file" && i+1 < len(s.args) {
			return s.args[i+1]
		}
	}
	return ""
}

// wholeNodesConf returns the content of the nodes.conf at path when it is
// whole (it names the node itself and ends with its vars line), else nil.
func wholeNodesConf(path string) []byte {
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte("myself")) || !bytes.Contains(b, []byte("\nvars ")) {
		return nil
	}
	return b
}
