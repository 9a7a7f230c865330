package echomqtest

import (
	"fmt"
	"syscall"
	"testing"
)

// persistArgs make a server durable across SIGKILL: every write reaches the
// append-only file before the reply, so an acknowledged write survives a
// kill and a [Server.Restart] reloads it from the server's own directory.
var persistArgs = []string{"--appendonly", "yes", "--appendfsync", "always"}

// StartPersistent is [Start] for a server that keeps its dataset through
// [Server.Kill] and [Server.Restart]: appendonly yes, appendfsync always,
// in the test's own data directory. Fault tests use it to count what an
// engine restart loses (nothing acknowledged, on one engine). args are
// appended after the persistence options, with the rules of Start.
func StartPersistent(tb testing.TB, args ...string) *Server {
	tb.Helper()
	return Start(tb, append(append([]string{}, persistArgs...), args...)...)
}

// Persistent reports whether the server keeps its dataset through a kill
// (it was started by [StartPersistent]).
func (s *Server) Persistent() bool { return s.persistent }

// Pause sends SIGSTOP to the server: it keeps its connections and its port
// but answers nothing, as a hung engine does (a long fork, a stalled disk, a
// frozen VM). Its clock keeps running, so keys expire while it is paused
// and are seen expired when it resumes. [Server.Resume] ends the pause;
// Stop and the test's cleanup resume it first, so a paused server never
// outlives its test. Pause refuses the shared and an external server, and
// a server that is not running; pausing a paused server is a no-op.
func (s *Server) Pause() error {
	if s.shared || s.external {
		return fmt.Errorf("echomqtest: refusing to pause the shared server %s; use Start for a private one", s.addr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil || s.p.exited() {
		return fmt.Errorf("echomqtest: server %s is not running", s.addr)
	}
	if !s.paused {
		s.p.signal(syscall.SIGSTOP)
		s.paused = true
	}
	return nil
}

// Resume sends SIGCONT to a paused server; the commands sent during the
// pause are then answered in order. It is a no-op on a server that is not
// paused.
func (s *Server) Resume() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resumeLocked()
	return nil
}

// Paused reports whether the server is paused.
func (s *Server) Paused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

// resumeLocked continues a paused process; s.mu is held.
func (s *Server) resumeLocked() {
	if s.paused && s.p != nil && !s.p.exited() {
		s.p.signal(syscall.SIGCONT)
	}
	s.paused = false
}
