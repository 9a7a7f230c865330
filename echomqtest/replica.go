package echomqtest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// replicaReadyTimeout bounds the wait for a replica's first full sync.
const replicaReadyTimeout = 30 * time.Second

// StartReplica starts a private redis-server replicating master
// (--replicaof 127.0.0.1 <master port>) and waits until the replica's link
// is up and the master lists it online, so a write acknowledged by the
// master from then on reaches it (asynchronously, as replication does).
// args are appended with the rules of [Start] (for example the persistence
// options, to test WAITAOF). The replica is stopped by tb.Cleanup; Kill,
// Restart and Pause work on it as on any server.
func StartReplica(tb testing.TB, master *Server, args ...string) *Server {
	tb.Helper()
	// A replica's first sync waits repl-diskless-sync-delay (5s by
	// default) for more replicas to join; none will. A master being stopped waits shutdown-timeout (10s) for
	// lagging replicas; a test's master need not.
	if _, err := respDo(master.Addr(), probeTimeout, "CONFIG", "SET", "repl-diskless-sync-delay", "0", "shutdown-timeout", "0"); err != nil {
		tb.Fatalf("echomqtest: %s: CONFIG SET: %v", master.Addr(), err)
	}
	r := Start(tb, append([]string{"--replicaof", "127.0.0.1", strconv.Itoa(master.Port())}, args...)...)
	if err := WaitReplicas(master, 1, replicaReadyTimeout); err != nil {
		tb.Fatal(err)
	}
	if err := waitLinkUp(r.Addr(), replicaReadyTimeout); err != nil {
		tb.Fatal(err)
	}
	// A replica with appendonly yes rewrites its append-only file after the
	// sync, and refuses to shut down meanwhile ("Writing initial AOF, can't
	// exit"): a Stop would wait out its timeout. Let the rewrite finish.
	if err := waitNoRewrite(r.Addr(), replicaReadyTimeout); err != nil {
		tb.Fatal(err)
	}
	return r
}

// waitNoRewrite waits until the server at addr has no append-only file
// rewrite running or scheduled.
func waitNoRewrite(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		s, err := respString(addr, probeTimeout, "INFO", "persistence")
		if err == nil {
			info := parseInfo(s)
			if info["aof_rewrite_in_progress"] != "1" && info["aof_rewrite_scheduled"] != "1" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("echomqtest: %s still rewriting its append-only file after %v (last error: %w)", addr, timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitReplicas waits until master lists at least n replicas online
// (INFO replication), or timeout passes.
func WaitReplicas(master *Server, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		s, err := respString(master.Addr(), probeTimeout, "INFO", "replication")
		online := 0
		if err == nil {
			info := parseInfo(s)
			for i := range 64 {
				if v, ok := info["slave"+strconv.Itoa(i)]; ok && containsField(v, "state=online") {
					online++
				}
			}
		}
		if online >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("echomqtest: %s lists %d replicas online after %v, want %d (last error: %w)", master.Addr(), online, timeout, n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitLinkUp waits until the replica at addr reports master_link_status:up.
func waitLinkUp(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		s, err := respString(addr, probeTimeout, "INFO", "replication")
		if err == nil && parseInfo(s)["master_link_status"] == "up" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("echomqtest: replica %s link not up after %v (last error: %w)", addr, timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// containsField reports whether a comma-separated INFO value holds f.
func containsField(v, f string) bool {
	for len(v) > 0 {
		var part string
		part, v, _ = strings.Cut(v, ",")
		if part == f {
			return true
		}
	}
	return false
}
