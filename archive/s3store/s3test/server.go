package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
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

	"github.com/echomq/echomq/archive/s3store"
)

// Version is the versitygw release the harness installs when none is found.
const Version = "v1.8.0"

// Server is one running versitygw process.
type Server struct {
	Endpoint  string // 127.0.0.1:port
	AccessKey string
	SecretKey string
	Dir       string // the posix backend's root: one directory per bucket

	bin  string
	log  string
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start starts a private server for tb; tb.Cleanup kills it. A missing
// binary that cannot be installed skips tb (fails it when CI=true).
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := Binary(tb)
	dir := tb.TempDir()
	s := &Server{
		AccessKey: "emqtestaccess", SecretKey: "emqtestsecret-" + randHex(8), Dir: filepath.Join(dir, "root"),
		bin: bin, log: filepath.Join(dir, "versitygw.log"),
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	var err error
	for range 5 { // a port picked free can be taken before the server binds it
		s.Endpoint, err = freePort()
		if err == nil {
			if err = s.start(); err == nil {
				break
			}
		}
	}
	if err != nil {
		tb.Fatalf("s3test: start versitygw: %v\n%s", err, tail(s.log))
	}
	tb.Cleanup(s.Kill)
	return s
}

// NewStore creates a fresh bucket and returns a store on it.
func (s *Server) NewStore(tb testing.TB) *s3store.Store {
	tb.Helper()
	st, err := s3store.New(s.Config("t" + randHex(8)))
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := st.EnsureBucket(ctx); err != nil {
		tb.Fatalf("s3test: create bucket: %v", err)
	}
	return st
}

// Config returns the store configuration of bucket on this server, with
// one retry so a stopped server fails fast.
func (s *Server) Config(bucket string) *s3store.Config {
	return &s3store.Config{Endpoint: s.Endpoint, Bucket: bucket, AccessKey: s.AccessKey, SecretKey: s.SecretKey, Insecure: true, MaxRetries: 1}
}

func (s *Server) start() error {
	cmd := exec.Command(s.bin, "--port", s.Endpoint, "--access", s.AccessKey, "--secret", s.SecretKey, "--quiet", "posix", s.Dir)
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := startCmd(cmd); err != nil {
		logf.Close()
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); released(); close(done) }()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return errors.New("versitygw exited at start")
		default:
		}
		resp, err := http.Get("http://" + s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Kill()
	return errors.New("versitygw did not answer within 15s")
}

// Kill stops the server with SIGKILL and waits for it; the store becomes
// unreachable. Killing a stopped server does nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

// Restart starts the killed server again on the same port and directory.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	var err error
	for range 50 { // the port may linger briefly
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Fatalf("s3test: restart versitygw: %v\n%s", err, tail(s.log))
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(bytes.TrimSpace(b))
}

// Spawner: Pdeathsig fires when the thread that forked the child exits,
// so every server is forked from one goroutine locked to its own thread,
// which lives while any server does (and then ends, so no goroutine is
// left behind).
var spawner struct {
	mu   sync.Mutex
	live int
	reqs chan spawnReq
	done chan struct{}
}

type spawnReq struct {
	cmd *exec.Cmd
	res chan error
}

func startCmd(cmd *exec.Cmd) error {
	spawner.mu.Lock()
	defer spawner.mu.Unlock()
	if spawner.reqs == nil {
		reqs, done := make(chan spawnReq), make(chan struct{})
		spawner.reqs, spawner.done = reqs, done
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			defer close(done)
			for r := range reqs {
				r.res <- r.cmd.Start()
			}
		}()
	}
	res := make(chan error, 1)
	spawner.reqs <- spawnReq{cmd: cmd, res: res}
	err := <-res
	if err == nil {
		spawner.live++
	} else if spawner.live == 0 {
		stopSpawner()
	}
	return err
}

// released records that a server's process is gone; the last one stops
// the spawner.
func released() {
	spawner.mu.Lock()
	defer spawner.mu.Unlock()
	if spawner.live--; spawner.live == 0 {
		stopSpawner()
	}
}

func stopSpawner() {
	close(spawner.reqs)
	<-spawner.done
	spawner.reqs, spawner.done = nil, nil
}

// ---------------------------------------------------------------------------
// Finding or installing the binary.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary returns the path of versitygw, installing it once when missing;
// it skips tb (fails it when CI=true) when that is impossible.
func Binary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() { binPath, binErr = findOrInstall() })
	if binErr != nil {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			tb.Fatalf("s3test: %v", binErr)
		}
		tb.Skipf("s3test: %v; skipping (set CI=true to make this a failure)", binErr)
	}
	return binPath
}

func findOrInstall() (string, error) {
	if p := os.Getenv("EMQ_VERSITYGW"); p != "" {
		if _, err := os.Stat(p); err != nil { //nolint:gosec // G703: the operator names the binary to run
			return "", fmt.Errorf("EMQ_VERSITYGW=%q: %w", p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("versitygw not found and no go command to install it: %w", err)
	}
	out, err := exec.Command(goBin, "env", "GOPATH").Output()
	if err != nil {
		return "", fmt.Errorf("versitygw not found and `go env GOPATH` failed: %w", err)
	}
	gopath, _, _ := strings.Cut(strings.TrimSpace(string(out)), string(os.PathListSeparator))
	p := filepath.Join(gopath, "bin", "versitygw")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	// Serialize the install across test binaries that run in parallel.
	if err := os.MkdirAll(filepath.Join(gopath, "bin"), 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(gopath, "bin", ".versitygw-install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck // released on close anyway
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	cmd := exec.Command(goBin, "install", "github.com/versity/versitygw/cmd/versitygw@"+Version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("versitygw not found and `go install github.com/versity/versitygw/cmd/versitygw@%s` failed: %w\n%s", Version, err, out)
	}
	return p, nil
}
