package echomq

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEngineFromInfo: the engine's identity and memory from INFO replies
// of Redis, Valkey (which also reports a redis_version for compatibility)
// and a cluster node, and the estimates built on them.
func TestEngineFromInfo(t *testing.T) {
	t.Parallel()
	at := time.Unix(1700000000, 0)
	for _, tc := range []struct {
		name, info string
		want       Engine
	}{
		{
			"redis", "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n\r\n# Memory\r\nused_memory:964104\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n\r\n# Cluster\r\ncluster_enabled:0\r\n",
			Engine{Name: engineRedis, Version: "7.0.15", Checked: true, Policy: "noeviction", UsedMemory: 964104, At: at},
		},
		{
			"valkey", "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\n# Memory\r\nused_memory:1000\r\nmaxmemory:8388608\r\nmaxmemory_policy:allkeys-lru\r\n# Cluster\r\ncluster_enabled:1\r\n",
			Engine{Name: engineValkey, Version: "8.0.1", Cluster: true, Checked: true, Policy: "allkeys-lru", MaxMemory: 8 << 20, UsedMemory: 1000, At: at},
		},
		{
			"server_name only", "server_name:valkey\nredis_version:7.2.4\n",
			Engine{Name: engineValkey, Version: "7.2.4", Checked: true, At: at},
		},
	} {
		require.Equal(t, tc.want, engineFromInfo(tc.info, at), tc.name)
	}

	e := Engine{Checked: true, Policy: "volatile-ttl", MaxMemory: 1000, UsedMemory: 400, Growth: 100}
	require.True(t, e.Evicting())
	h, ok := e.Headroom()
	require.True(t, ok)
	require.Equal(t, int64(600), h)
	d, ok := e.UntilFull()
	require.True(t, ok)
	require.Equal(t, 6*time.Second, d)
	e.UsedMemory = 1200
	d, ok = e.UntilFull()
	require.True(t, ok)
	require.Zero(t, d, "already full")
	e.MaxMemory = 0
	_, ok = e.UntilFull()
	require.False(t, ok, "no limit")
	require.False(t, Engine{}.Evicting(), "an unknown policy is not known to evict")

	t0 := at
	require.Zero(t, growth([]reading{{t0, 10}}))
	require.Zero(t, growth([]reading{{t0, 10}, {t0.Add(time.Second), 5}}), "shrinking is no growth")
	require.InDelta(t, 50.0, growth([]reading{{t0, 0}, {t0.Add(time.Second), 20}, {t0.Add(2 * time.Second), 100}}), 1e-9)
}
