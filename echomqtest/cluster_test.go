package echomqtest

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// slotOwner returns the address of the master serving slot, as seen by addr.
func slotOwner(t *testing.T, addr string, slot int) string {
	t.Helper()
	s, err := respString(addr, testTimeout, "CLUSTER", "NODES")
	require.NoError(t, err)
	nodes, err := parseClusterNodes(s)
	require.NoError(t, err)
	for _, n := range nodes {
		if n.owns(slot) {
			return n.Addr
		}
	}
	t.Fatalf("no owner for slot %d in %q", slot, s)
	return ""
}

func TestCluster(t *testing.T) {
	t.Parallel()
	start := time.Now()
	c := StartCluster(t)
	t.Logf("cluster started in %v", time.Since(start))

	addrs := c.Addrs()
	require.Len(t, addrs, 3)
	seen := map[string]bool{}
	for _, a := range addrs {
		require.Regexp(t, `^127\.0\.0\.1:\d+$`, a)
		require.False(t, seen[a])
		seen[a] = true
		port, err := strconv.Atoi(strings.TrimPrefix(a, "127.0.0.1:"))
		require.NoError(t, err)
		require.LessOrEqual(t, port+busOffset, 65535)
	}
	require.Equal(t, "redis://"+addrs[0]+"?addr="+addrs[1]+"&addr="+addrs[2], c.URL())
	require.Len(t, c.Nodes(), 3)

	for _, a := range addrs {
		s, err := respString(a, testTimeout, "CLUSTER", "INFO")
		require.NoError(t, err)
		info := parseInfo(s)
		require.Equal(t, "ok", info["cluster_state"], a)
		require.Equal(t, "16384", info["cluster_slots_ok"], a)
		require.Equal(t, "3", info["cluster_size"], a)
		require.Equal(t, "3", info["cluster_known_nodes"], a)
	}

	// Keys with different hash tags land on different masters: find tags
	// covering all 3 masters, write each key to its owner, and check that a
	// non-owner redirects with MOVED.
	owners := map[string]string{} // owner addr -> key
	for i := 0; i < 1000 && len(owners) < 3; i++ {
		key := "q:{tag" + strconv.Itoa(i) + "}:stream"
		slot, err := respInt(addrs[0], testTimeout, "CLUSTER", "KEYSLOT", key)
		require.NoError(t, err)
		owner := slotOwner(t, addrs[0], int(slot))
		for _, a := range addrs[1:] {
			require.Equal(t, owner, slotOwner(t, a, int(slot)), "nodes disagree on slot %d", slot)
		}
		if _, ok := owners[owner]; !ok {
			owners[owner] = key
		}
	}
	require.Len(t, owners, 3, "hash tags must spread over all 3 masters")
	for owner, key := range owners {
		require.True(t, seen[owner], "owner %s is not one of our masters", owner)
		ok, err := respString(owner, testTimeout, "SET", key, "v")
		require.NoError(t, err)
		require.Equal(t, "OK", ok)
		for _, a := range addrs {
			if a == owner {
				continue
			}
			_, err := respDo(a, testTimeout, "GET", key)
			require.Error(t, err)
			require.Contains(t, err.Error(), "MOVED")
			require.Contains(t, err.Error(), owner)
		}
	}
}

func TestClusterNodeKillRestart(t *testing.T) {
	t.Parallel()
	c := StartCluster(t)
	n := c.Nodes()[1]
	require.NoError(t, n.Kill())
	n.Restart(t)
	require.Equal(t, c.Addrs()[1], n.Addr())
	c.WaitReady(t) // the restarted node rejoins from its nodes.conf
	c.Stop()
	c.Stop()
	_, err := respDo(n.Addr(), 200*time.Millisecond, "PING")
	require.Error(t, err)
}

// TestClusterNodeRestartsFromTornNodesConf: a node killed while the engine
// rewrote its nodes.conf (the file torn to one line of another node, as
// Valkey 8.0 left it once under load) restarts from the whole file read
// at Kill and rejoins its cluster.
func TestClusterNodeRestartsFromTornNodesConf(t *testing.T) {
	t.Parallel()
	c := StartCluster(t)
	n := c.Nodes()[1]
	require.NoError(t, n.Kill())
	conf := n.clusterConfigFile()
	whole, err := os.ReadFile(conf)
	require.NoError(t, err)
	var torn []byte
	for line := range bytes.Lines(whole) {
		if !bytes.Contains(line, []byte("myself")) && !bytes.HasPrefix(line, []byte("vars ")) {
			torn = line
			break
		}
	}
	require.NotEmpty(t, torn)
	require.NoError(t, os.WriteFile(conf, torn, 0o600))
	n.Restart(t)
	c.WaitReady(t)
	log, err := os.ReadFile(n.LogPath())
	require.NoError(t, err)
	require.Contains(t, string(log), "corrupted cluster config file", "the torn file was refused first")
	got, err := os.ReadFile(conf)
	require.NoError(t, err)
	require.NotNil(t, wholeNodesConf(conf), "the node rewrote a whole nodes.conf: %q", got)
}

func TestParseClusterNodes(t *testing.T) {
	t.Parallel()
	in := "07c3 127.0.0.1:30004@40004,host master - 0 1 1 connected 0-5460 [5461->-e7d1]\n" +
		"e7d1 127.0.0.1:30002@40002 myself,master - 0 0 2 connected 10923-16383 5461-10922\n" +
		"67ed 127.0.0.1:30003@40003 master,fail? - 0 0 3 disconnected 7\n"
	nodes, err := parseClusterNodes(in)
	require.NoError(t, err)
	require.Len(t, nodes, 3)
	require.Equal(t, "127.0.0.1:30004", nodes[0].Addr)
	require.Equal(t, [][2]int{{0, 5460}}, nodes[0].Slots)
	require.True(t, nodes[0].healthy())
	require.Equal(t, [][2]int{{5461, 10922}, {10923, 16383}}, nodes[1].Slots)
	require.Equal(t, "5461-10922,10923-16383", nodes[1].slotString())
	require.True(t, nodes[1].master())
	require.True(t, nodes[1].owns(16383))
	require.False(t, nodes[1].owns(0))
	require.False(t, nodes[2].healthy())
	require.True(t, nodes[2].owns(7))

	_, err = parseClusterNodes("short line\n")
	require.Error(t, err)
	_, err = parseClusterNodes("a b master - 0 0 1 connected 9-3\n")
	require.Error(t, err)
}
