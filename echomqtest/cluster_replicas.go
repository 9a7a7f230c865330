package echomqtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// replicatedNodeTimeout is the cluster-node-timeout of a replicated
// cluster: how long a master may be unreachable before its replica takes
// over (Redis's default is 15s; a test need not wait that long).
const replicatedNodeTimeout = 2 * time.Second

// StartReplicatedCluster starts a Redis Cluster of 3 masters, each with one
// replica, for this test, and waits until every node serves all slots and
// each replica is in sync with its master. The nodes are stopped by
// tb.Cleanup. [Cluster.Nodes] are the masters and [Cluster.Replicas] the
// replicas as created; roles change with [Cluster.Failover] and
// [Cluster.WaitPromoted]. cluster-node-timeout is 2s, so a killed master's
// replica is promoted within a few seconds. args are given to every node
// (for example the persistence options).
func StartReplicatedCluster(tb testing.TB, args ...string) *Cluster {
	tb.Helper()
	bin := mustBinary(tb, serverBinary)
	cli := mustBinary(tb, cliBinary)
	root := tb.TempDir()
	c := &Cluster{}
	tb.Cleanup(c.Stop)
	var all []*Server
	for i := range 2 * clusterSize {
		dir := filepath.Join(root, "node"+strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		s, err := startServer(bin, dir, true, append([]string{
			"--cluster-enabled", "yes",
			"--cluster-config-file", filepath.Join(dir, "nodes.conf"),
			"--cluster-node-timeout", strconv.Itoa(int(replicatedNodeTimeout.Milliseconds())),
			"--repl-diskless-sync-delay", "0",
			"--shutdown-timeout", "0",
		}, args...))
		if err != nil {
			tb.Fatalf("echomqtest: start cluster node: %v", err)
		}
		all = append(all, s)
		if i < clusterSize {
			c.nodes = append(c.nodes, s)
		} else {
			c.replicas = append(c.replicas, s)
		}
	}
	addrs := make([]string, len(all))
	for i, s := range all {
		addrs[i] = s.Addr()
	}
	c.url = "redis://" + addrs[0] + "?addr=" + strings.Join(addrs[1:clusterSize], "&addr=")
	if err := createCluster(cli, root, addrs, 1); err != nil {
		tb.Fatal(err)
	}
	if err := c.waitServing(clusterReadyTimeout, true); err != nil {
		tb.Fatal(err)
	}
	// Which node replicates which is redis-cli's choice: name them by role,
	// once every node's role has spread through the cluster.
	deadline := time.Now().Add(clusterReadyTimeout)
	for {
		roles, err := c.roles()
		var masters, replicas []*Server
		for _, s := range all {
			switch n, ok := roles[s.Addr()]; {
			case !ok:
			case n.master() && len(n.Slots) > 0:
				masters = append(masters, s)
			case n.masterID != "":
				replicas = append(replicas, s)
			}
		}
		if err == nil && len(masters) == clusterSize && len(replicas) == clusterSize {
			c.nodes, c.replicas = masters, replicas
			return c
		}
		if time.Now().After(deadline) {
			tb.Fatalf("echomqtest: replicated cluster has %d masters and %d replicas after %v (%v)", len(masters), len(replicas), clusterReadyTimeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Replicas returns the replicas of a [StartReplicatedCluster] cluster as
// created (nil for [StartCluster]).
func (c *Cluster) Replicas() []*Server { return append([]*Server(nil), c.replicas...) }

// all returns every node, masters first.
func (c *Cluster) all() []*Server { return append(append([]*Server(nil), c.nodes...), c.replicas...) }

// ReplicaOf returns the node replicating master now, or nil.
func (c *Cluster) ReplicaOf(master *Server) (*Server, error) {
	view, err := c.view()
	if err != nil {
		return nil, err
	}
	var id string
	for _, n := range view {
		if n.Addr == master.Addr() {
			id = n.ID
		}
	}
	for _, n := range view {
		if n.masterID == id && id != "" {
			return c.byAddr(n.Addr), nil
		}
	}
	return nil, nil
}

// MasterOf returns the node serving slot. Right after a failover or a
// restart the node asked may not have heard of the new master yet, or
// still flag a peer it lost touch with: it asks again until a healthy
// master serves slot (up to 30s).
func (c *Cluster) MasterOf(slot int) (*Server, error) {
	deadline := time.Now().Add(clusterReadyTimeout)
	for {
		view, err := c.view()
		if err == nil {
			for _, n := range view {
				if n.master() && n.healthy() && n.owns(slot) {
					return c.byAddr(n.Addr), nil
				}
			}
			err = fmt.Errorf("echomqtest: no healthy master serves slot %d", slot)
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(50 * time.Millisecond) // sleep: the cluster's gossip converges
	}
}

// Failover runs CLUSTER FAILOVER on replica (a manual failover: its master
// stops taking writes, the replica catches up, and takes over its slots)
// and waits until replica serves them, the whole cluster serves every slot,
// and the old master, now its replica, is in sync with it (so it may be
// promoted in turn).
func (c *Cluster) Failover(tb testing.TB, replica *Server) {
	tb.Helper()
	// A manual failover the master does not join within 5s (a loaded
	// machine) is dropped by the replica without a word: ask again.
	deadline := time.Now().Add(clusterReadyTimeout)
	for {
		if _, err := respDo(replica.Addr(), probeTimeout, "CLUSTER", "FAILOVER"); err != nil {
			tb.Fatalf("echomqtest: CLUSTER FAILOVER on %s: %v", replica.Addr(), err)
		}
		err := c.waitPromoted(replica, min(failoverTry, time.Until(deadline)))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("echomqtest: %s not promoted by CLUSTER FAILOVER within %v: %v", replica.Addr(), clusterReadyTimeout, err)
		}
	}
	if err := WaitReplicas(replica, 1, clusterReadyTimeout); err != nil {
		tb.Fatal(err)
	}
}

// WaitPromoted waits (up to 30s) until replica is a master serving slots
// and every live node serves all 16384 slots: after [Cluster.Failover], or
// after its master was killed ([Server.Kill]; the promotion takes about
// two cluster-node-timeouts).
func (c *Cluster) WaitPromoted(tb testing.TB, replica *Server) {
	tb.Helper()
	if err := c.waitPromoted(replica, clusterReadyTimeout); err != nil {
		tb.Fatalf("echomqtest: %s not promoted within %v: %v", replica.Addr(), clusterReadyTimeout, err)
	}
}

// failoverTry is how long Failover waits for one CLUSTER FAILOVER.
const failoverTry = 10 * time.Second

func (c *Cluster) waitPromoted(replica *Server, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := c.waitServing(0, false)
		if err == nil {
			roles, rerr := c.roles()
			if rerr == nil && roles[replica.Addr()].master() && len(roles[replica.Addr()].Slots) > 0 {
				return nil
			}
			err = fmt.Errorf("%s is not serving slots yet (%w)", replica.Addr(), rerr)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *Cluster) byAddr(addr string) *Server {
	for _, s := range c.all() {
		if s.Addr() == addr {
			return s
		}
	}
	return nil
}

// live returns the nodes that answer.
func (c *Cluster) live() []*Server {
	var out []*Server
	for _, s := range c.all() {
		if _, err := respString(s.Addr(), probeTimeout, "PING"); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// view is CLUSTER NODES as the first live node sees it.
func (c *Cluster) view() ([]clusterNode, error) {
	var lastErr error
	for _, s := range c.live() {
		out, err := respString(s.Addr(), probeTimeout, "CLUSTER", "NODES")
		if err != nil {
			lastErr = err
			continue
		}
		return parseClusterNodes(out)
	}
	return nil, fmt.Errorf("echomqtest: no cluster node answers: %w", lastErr)
}

// roles maps each node's address to its line of CLUSTER NODES.
func (c *Cluster) roles() (map[string]clusterNode, error) {
	view, err := c.view()
	if err != nil {
		return nil, err
	}
	m := make(map[string]clusterNode, len(view))
	for _, n := range view {
		m[n.Addr] = n
	}
	return m, nil
}

// waitServing waits until every live node reports cluster_state:ok with all
// slots served and agrees on which address serves each slot range; with
// synced, also until every replica's link to its master is up.
func (c *Cluster) waitServing(timeout time.Duration, synced bool) error {
	deadline := time.Now().Add(timeout)
	for {
		err := c.serving(synced)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *Cluster) serving(synced bool) error {
	var first map[string]string
	for _, s := range c.live() {
		out, err := respString(s.Addr(), probeTimeout, "CLUSTER", "INFO")
		if err != nil {
			return err
		}
		info := parseInfo(out)
		if info["cluster_state"] != "ok" || info["cluster_slots_ok"] != strconv.Itoa(clusterSlots) {
			return fmt.Errorf("%s: cluster_state=%s slots_ok=%s", s.Addr(), info["cluster_state"], info["cluster_slots_ok"])
		}
		out, err = respString(s.Addr(), probeTimeout, "CLUSTER", "NODES")
		if err != nil {
			return err
		}
		nodes, err := parseClusterNodes(out)
		if err != nil {
			return err
		}
		view := map[string]string{}
		for _, n := range nodes {
			if n.master() && len(n.Slots) > 0 {
				if !n.healthy() {
					return fmt.Errorf("%s: master %s serving slots is %v/%s", s.Addr(), n.Addr, n.Flags, n.Link)
				}
				view[n.slotString()] = n.Addr
			}
		}
		if first == nil {
			first = view
		} else if fmt.Sprint(first) != fmt.Sprint(view) {
			return fmt.Errorf("slot owners disagree: %v and %v (%s)", first, view, s.Addr())
		}
		if synced {
			out, err := respString(s.Addr(), probeTimeout, "INFO", "replication")
			if err != nil {
				return err
			}
			r := parseInfo(out)
			if r["role"] == "slave" && r["master_link_status"] != "up" {
				return fmt.Errorf("%s: replica link %s", s.Addr(), r["master_link_status"])
			}
		}
	}
	if first == nil {
		return errors.New("echomqtest: no cluster node answers")
	}
	return nil
}
