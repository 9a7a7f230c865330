package echomqtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// clusterSize is the number of masters of a Cluster.
	clusterSize = 3
	// clusterSlots is the number of hash slots of Redis Cluster.
	clusterSlots = 16384
	// clusterCreateTimeout bounds `redis-cli --cluster create`.
	clusterCreateTimeout = 60 * time.Second
	// clusterReadyTimeout bounds the wait for a consistent, healthy cluster.
	clusterReadyTimeout = 30 * time.Second
)

// Cluster is a Redis Cluster of 3 masters (no replicas) on loopback, made of
// private redis-server processes started by [StartCluster]. Its methods are
// safe for concurrent use.
type Cluster struct {
	nodes    []*Server // masters, in creation order; fixed after StartCluster
	replicas []*Server // replicas at creation ([StartReplicatedCluster]), in creation order
	url      string
	once     sync.Once
}

// StartCluster starts a 3-master Redis Cluster for this test and waits until
// every node reports cluster_state:ok and all nodes agree on which master
// serves which slots. The nodes are stopped by tb.Cleanup.
//
// Each node is a redis-server with --cluster-enabled yes and its
// --cluster-config-file in a tb.TempDir(), on a port p such that p+10000 (the
// cluster bus port) is free too; the cluster is created with
// `redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes`.
// Starting a cluster takes a couple of seconds (redis-cli waits for the
// nodes to join). If redis-server or redis-cli cannot be found the test is
// skipped, or failed when CI=true.
func StartCluster(tb testing.TB) *Cluster {
	tb.Helper()
	bin := mustBinary(tb, serverBinary)
	cli := mustBinary(tb, cliBinary)
	root := tb.TempDir()

	c := &Cluster{}
	var startErr error
	for i := range clusterSize {
		dir := filepath.Join(root, "node"+strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			startErr = err
			break
		}
		s, err := startServer(bin, dir, true, []string{
			"--cluster-enabled", "yes",
			"--cluster-config-file", filepath.Join(dir, "nodes.conf"),
		})
		if err != nil {
			startErr = err
			break
		}
		c.nodes = append(c.nodes, s)
	}
	tb.Cleanup(c.Stop)
	if startErr != nil {
		tb.Fatalf("echomqtest: start cluster node: %v", startErr)
	}
	addrs := c.Addrs()
	c.url = "redis://" + addrs[0] + "?addr=" + strings.Join(addrs[1:], "&addr=")

	if err := createCluster(cli, root, addrs, 0); err != nil {
		tb.Fatal(err)
	}
	c.WaitReady(tb)
	return c
}

// createCluster runs `redis-cli --cluster create`.
func createCluster(cli, dir string, addrs []string, replicas int) error {
	ctx, cancel := context.WithTimeout(context.Background(), clusterCreateTimeout)
	defer cancel()
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = sysProcAttr()
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := startCmd(cmd); err != nil {
		return fmt.Errorf("echomqtest: start %s: %w", cli, err)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("echomqtest: %s %s: %w\n%s", cli, strings.Join(args, " "), err, out.String())
	}
	return nil
}

// Addrs returns the addresses ("127.0.0.1:PORT") of the 3 masters.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.nodes))
	for i, s := range c.nodes {
		addrs[i] = s.Addr()
	}
	return addrs
}

// URL returns "redis://ADDR1?addr=ADDR2&addr=ADDR3", the form in which
// valkey-go's ParseURL takes extra initial addresses.
func (c *Cluster) URL() string { return c.url }

// Nodes returns the 3 master servers, in the order of [Cluster.Addrs], e.g.
// to [Server.Kill] and [Server.Restart] one of them. A restarted node
// reloads its nodes.conf and rejoins the cluster, with its slots but without
// its data; use [Cluster.WaitReady] to wait for the cluster to be healthy
// again.
func (c *Cluster) Nodes() []*Server { return slices.Clone(c.nodes) }

// WaitReady waits (up to 30 s) until every node reports cluster_state:ok
// with all 16384 slots served, every node knows all 3 masters as connected,
// and all nodes agree on the slot coverage. It fails tb otherwise.
func (c *Cluster) WaitReady(tb testing.TB) {
	tb.Helper()
	if err := waitClusterReady(c.Addrs(), clusterReadyTimeout); err != nil {
		tb.Fatal(err)
	}
}

// Stop stops all nodes. It is idempotent and called by tb.Cleanup.
func (c *Cluster) Stop() {
	c.once.Do(func() {
		var wg sync.WaitGroup
		for _, s := range append(slices.Clone(c.nodes), c.replicas...) {
			wg.Go(s.Stop)
		}
		wg.Wait()
	})
}

// waitClusterReady polls until clusterHealthy succeeds or timeout passes.
func waitClusterReady(addrs []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := clusterHealthy(addrs)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("echomqtest: cluster %v not ready within %v: %w", addrs, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// clusterHealthy checks CLUSTER INFO and CLUSTER NODES on every node.
func clusterHealthy(addrs []string) error {
	var first map[string]string
	for _, addr := range addrs {
		s, err := respString(addr, probeTimeout, "CLUSTER", "INFO")
		if err != nil {
			return fmt.Errorf("%s: CLUSTER INFO: %w", addr, err)
		}
		info := parseInfo(s)
		want := map[string]string{
			"cluster_state":          "ok",
			"cluster_slots_assigned": strconv.Itoa(clusterSlots),
			"cluster_slots_ok":       strconv.Itoa(clusterSlots),
			"cluster_known_nodes":    strconv.Itoa(len(addrs)),
			"cluster_size":           strconv.Itoa(len(addrs)),
		}
		for k, v := range want {
			if info[k] != v {
				return fmt.Errorf("%s: CLUSTER INFO %s=%q, want %q", addr, k, info[k], v)
			}
		}
		s, err = respString(addr, probeTimeout, "CLUSTER", "NODES")
		if err != nil {
			return fmt.Errorf("%s: CLUSTER NODES: %w", addr, err)
		}
		nodes, err := parseClusterNodes(s)
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
		view := make(map[string]string, len(nodes))
		for _, n := range nodes {
			if !n.master() || !n.healthy() {
				return fmt.Errorf("%s: node %s %s is %s/%s", addr, n.ID, n.Addr, n.Flags, n.Link)
			}
			view[n.Addr] = n.slotString()
		}
		for _, a := range addrs {
			if _, ok := view[a]; !ok {
				return fmt.Errorf("%s: does not know master %s yet (knows %v)", addr, a, view)
			}
		}
		if first == nil {
			first = view
		} else if !reflect.DeepEqual(first, view) {
			return fmt.Errorf("slot coverage disagreement: %s sees %v, %s sees %v", addrs[0], first, addr, view)
		}
	}
	return nil
}

// clusterNode is one line of CLUSTER NODES.
type clusterNode struct {
	ID    string
	Addr  string // ip:port, without @busport and hostname
	Flags []string
	Link  string // "connected" or "disconnected"
	// masterID is the id of the master a replica follows ("" for a master).
	masterID string
	Slots    [][2]int // served slot ranges, inclusive
}

func (n clusterNode) master() bool { return slices.Contains(n.Flags, "master") }

func (n clusterNode) healthy() bool {
	for _, f := range n.Flags {
		switch f {
		case "fail", "fail?", "handshake", "noaddr", "nofailover":
			return false
		}
	}
	return n.Link == "connected"
}

// owns reports whether n serves slot.
func (n clusterNode) owns(slot int) bool {
	for _, r := range n.Slots {
		if slot >= r[0] && slot <= r[1] {
			return true
		}
	}
	return false
}

func (n clusterNode) slotString() string {
	parts := make([]string, len(n.Slots))
	for i, r := range n.Slots {
		parts[i] = fmt.Sprintf("%d-%d", r[0], r[1])
	}
	return strings.Join(parts, ",")
}

// parseClusterNodes parses CLUSTER NODES output:
//
//	<id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent> <pong-recv> <config-epoch> <link-state> <slot> <slot> ...
//
// Importing/migrating markers ("[slot->-id]") are ignored.
func parseClusterNodes(s string) ([]clusterNode, error) {
	var nodes []clusterNode
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 8 {
			return nil, fmt.Errorf("bad CLUSTER NODES line %q", line)
		}
		addr, _, _ := strings.Cut(f[1], "@")
		addr, _, _ = strings.Cut(addr, ",")
		n := clusterNode{ID: f[0], Addr: addr, Flags: strings.Split(f[2], ","), Link: f[7]}
		if f[3] != "-" {
			n.masterID = f[3]
		}
		for _, sl := range f[8:] {
			if strings.HasPrefix(sl, "[") {
				continue
			}
			lo, hi, isRange := strings.Cut(sl, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || a > b {
				return nil, fmt.Errorf("bad slot range %q in CLUSTER NODES line %q", sl, line)
			}
			n.Slots = append(n.Slots, [2]int{a, b})
		}
		slices.SortFunc(n.Slots, func(x, y [2]int) int { return x[0] - y[0] })
		nodes = append(nodes, n)
	}
	return nodes, nil
}
