package echomqtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// readyTimeout bounds how long a freshly spawned server may take to
	// answer PING.
	readyTimeout = 10 * time.Second
	// stopTimeout bounds a graceful stop (SIGTERM) before SIGKILL.
	stopTimeout = 5 * time.Second
	// spawnTries is how many ports are tried when a spawn fails because the
	// port was taken between picking and binding it.
	spawnTries = 5
	// busOffset is the distance between a cluster node's port and its
	// cluster bus port (Redis default).
	busOffset = 10000
	// probeTimeout bounds one probe command (PING, INFO, ...).
	probeTimeout = 2 * time.Second
)

// errPortInUse marks a spawn that failed because its port was already taken.
var errPortInUse = errors.New("port already in use")

// errNoBinary marks a missing redis-server / redis-cli binary.
var errNoBinary = errors.New("binary not found")

// ---------------------------------------------------------------------------
// Binaries and CI policy.

// lookBinary finds name (or the path in env, if set); install says how to
// get it.
func lookBinary(name, env, install string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("echomqtest: %s=%q: %w (%w)", env, p, errNoBinary, err)
		}
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("echomqtest: %s %w in $PATH (install it, e.g. %s, or set %s): %w", name, errNoBinary, install, env, err)
	}
	return p, nil
}

// inCI reports whether CI=true (or any other true value of strconv.ParseBool).
func inCI() bool {
	ok, _ := strconv.ParseBool(os.Getenv("CI"))
	return ok
}

// skipOrFatal reports err on tb: a missing binary skips the test locally but
// fails it on CI; every other error fails the test.
func skipOrFatal(tb testing.TB, err error) {
	tb.Helper()
	if errors.Is(err, errNoBinary) && !inCI() {
		tb.Skipf("%v; skipping (set CI=true to make this a failure)", err)
	}
	tb.Fatal(err)
}

// ---------------------------------------------------------------------------
// Port registry: ports handed out to live servers of this test binary, so
// that two parallel tests never pick the same port from the kernel.

var (
	regMu   sync.Mutex
	regPort = map[int]bool{}
	regLive = map[*Server]struct{}{}
)

func reservePorts(ports ...int) bool {
	regMu.Lock()
	defer regMu.Unlock()
	for _, p := range ports {
		if regPort[p] {
			return false
		}
	}
	for _, p := range ports {
		regPort[p] = true
	}
	return true
}

func releasePorts(ports ...int) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, p := range ports {
		delete(regPort, p)
	}
}

// pickPort returns a free loopback port, reserved in the registry. With bus
// set, port+busOffset is free (and reserved) too.
func pickPort(bus bool) (int, error) {
	var lastErr error
	for range 200 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("echomqtest: pick free port: %w", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		ports := []int{p}
		if bus {
			if p+busOffset > 65535 {
				l.Close()
				continue
			}
			bl, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+busOffset)))
			if err != nil {
				lastErr = err
				l.Close()
				continue
			}
			bl.Close()
			ports = append(ports, p+busOffset)
		}
		l.Close()
		if reservePorts(ports...) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("echomqtest: no free port found (bus=%v): %w", bus, lastErr)
}

// ---------------------------------------------------------------------------
// Spawner. Pdeathsig is delivered when the *thread* that forked the child
// exits, not when the process does (golang/go#27505). The Go runtime only
// ever terminates a thread when a goroutine exits while locked to it, which
// arbitrary test code may do. Forking every server from one goroutine that
// stays locked to its own thread makes the servers' lifetime independent of
// whatever other goroutines do with LockOSThread.

type spawnReq struct {
	cmd *exec.Cmd
	res chan error
}

var spawner struct {
	mu   sync.Mutex
	reqs chan spawnReq
	done chan struct{}
}

// startCmd runs cmd.Start on the spawner thread.
func startCmd(cmd *exec.Cmd) error {
	spawner.mu.Lock()
	defer spawner.mu.Unlock()
	if spawner.reqs == nil {
		spawner.reqs = make(chan spawnReq)
		spawner.done = make(chan struct{})
		go spawnLoop(spawner.reqs, spawner.done)
	}
	res := make(chan error, 1)
	spawner.reqs <- spawnReq{cmd: cmd, res: res}
	return <-res
}

func spawnLoop(reqs <-chan spawnReq, done chan<- struct{}) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(done)
	for r := range reqs {
		r.res <- r.cmd.Start()
	}
}

// stopSpawner ends the spawner goroutine (it is restarted on demand).
func stopSpawner() {
	spawner.mu.Lock()
	defer spawner.mu.Unlock()
	if spawner.reqs != nil {
		close(spawner.reqs)
		<-spawner.done
		spawner.reqs, spawner.done = nil, nil
	}
}

// sysProcAttr makes children die with the test binary and keeps them out of
// the terminal's process group (so ^C reaches only the test binary, which
// then tears them down).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// ---------------------------------------------------------------------------
// One running redis-server process.

type proc struct {
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{} // closed once the process has been reaped
	err  error         // cmd.Wait result, valid after done
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process group of p.
func (p *proc) signal(sig syscall.Signal) {
	pid := p.cmd.Process.Pid
	if err := syscall.Kill(-pid, sig); err != nil {
		_ = p.cmd.Process.Signal(sig)
	}
}

// kill SIGKILLs p and waits until it is reaped.
func (p *proc) kill() {
	if !p.exited() {
		p.signal(syscall.SIGKILL)
	}
	<-p.done
	p.log.Close()
}

// stop asks p to shut down (SIGTERM: redis shuts down gracefully; nothing is
// saved since persistence is off) and SIGKILLs it after stopTimeout.
func (p *proc) stop() {
	if !p.exited() {
		p.signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(stopTimeout):
		}
	}
	p.kill()
}

// spawnRedis starts bin with args, logging to logPath (appended), and waits
// until it answers PING on addr and INFO reports its own pid (so a different
// server that grabbed the port is never mistaken for ours). On failure the
// process is killed and the error includes the tail of the log; if the port
// was taken, the error wraps errPortInUse.
func spawnRedis(bin, dir, logPath, addr string, args []string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("echomqtest: open log: %w", err)
	}
	off, _ := logf.Seek(0, 2)
	fmt.Fprintf(logf, "=== echomqtest %s: %s %s\n", time.Now().Format(time.RFC3339Nano), bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()
	if err := startCmd(cmd); err != nil {
		logf.Close()
		return nil, fmt.Errorf("echomqtest: start %s: %w", bin, err)
	}
	p := &proc{cmd: cmd, log: logf, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()

	err = waitReady(p, addr)
	if err == nil {
		return p, nil
	}
	p.kill()
	tail := logTail(logPath, off)
	if strings.Contains(tail, "Address already in use") {
		err = fmt.Errorf("%w: %w", errPortInUse, err)
	}
	return nil, fmt.Errorf("echomqtest: %s on %s did not come up: %w\n--- %s (tail) ---\n%s", filepath.Base(bin), addr, err, logPath, tail)
}

// waitReady polls addr until the server answers PING and reports p's pid.
func waitReady(p *proc, addr string) error {
	deadline := time.Now().Add(readyTimeout)
	pid := strconv.Itoa(p.cmd.Process.Pid)
	var lastErr error
	delay := 5 * time.Millisecond
	for {
		if p.exited() {
			return fmt.Errorf("process exited early: %w", p.err)
		}
		lastErr = probe(addr, pid)
		if lastErr == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no PING answer within %v: %w", readyTimeout, lastErr)
		}
		select {
		case <-p.done:
		case <-time.After(delay):
		}
		delay = min(delay*2, 50*time.Millisecond)
	}
}

// probe PINGs addr and checks INFO's process_id against pid.
func probe(addr, pid string) error {
	c, err := dialRESP(addr, probeTimeout)
	if err != nil {
		return err
	}
	defer c.Close()
	v, err := c.Do("PING")
	if err != nil {
		return err
	}
	if v != "PONG" {
		return fmt.Errorf("PING answered %v", v)
	}
	v, err = c.Do("INFO", "server")
	if err != nil {
		return err
	}
	s, _ := v.(string)
	if got := parseInfo(s)["process_id"]; got != pid {
		return fmt.Errorf("port answered by another process (pid %s, want %s)", got, pid)
	}
	return nil
}

// logTail returns at most the last 30 lines / 4 KiB of path written after
// offset off.
func logTail(path string, off int64) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	if off > 0 && off <= int64(len(b)) {
		b = b[off:]
	}
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}
