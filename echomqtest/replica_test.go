package echomqtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A replica started by StartReplica is in sync: a write on the master
// reaches it; paused, it falls behind, and catches up on resume.
func TestStartReplica(t *testing.T) {
	t.Parallel()
	master := Start(t)
	replica := StartReplica(t, master)
	require.NoError(t, WaitReplicas(master, 1, time.Second))
	role, err := respString(replica.Addr(), testTimeout, "INFO", "replication")
	require.NoError(t, err)
	require.Equal(t, "slave", parseInfo(role)["role"])

	get := func() any {
		v, err := respDo(replica.Addr(), testTimeout, "GET", "k")
		require.NoError(t, err)
		return v
	}
	_, err = respDo(master.Addr(), testTimeout, "SET", "k", "v1")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return get() == "v1" }, 10*time.Second, 10*time.Millisecond)
}

// A replicated cluster: 3 masters with a replica each; a manual failover
// swaps a pair's roles, and a killed master's replica is promoted.
func TestReplicatedCluster(t *testing.T) {
	t.Parallel()
	c := StartReplicatedCluster(t)
	require.Len(t, c.Nodes(), 3)
	require.Len(t, c.Replicas(), 3)
	m := c.Nodes()[0]
	r, err := c.ReplicaOf(m)
	require.NoError(t, err)
	require.NotNil(t, r)
	require.Contains(t, c.Replicas(), r)

	c.Failover(t, r)
	back, err := c.ReplicaOf(r)
	require.NoError(t, err)
	require.Eventually(t, func() bool { back, err = c.ReplicaOf(r); return err == nil && back == m }, 10*time.Second, 50*time.Millisecond,
		"the old master follows the new one")

	require.NoError(t, r.Kill())
	c.WaitPromoted(t, m)
	owner, err := c.MasterOf(0)
	require.NoError(t, err)
	require.NotEqual(t, r, owner)
}
