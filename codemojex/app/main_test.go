package app

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) {
	echomqtest.MainWithLeakCheck(m,
		// valkey-go closes the connections a cluster topology refresh
		// dropped after a fixed delay, and refreshes the topology after a
		// delay of its own (a failover), from goroutines that end by
		// themselves (TestServeShardedOnCluster).
		goleak.IgnoreAnyFunction("github.com/valkey-io/valkey-go.(*clusterClient)._refresh.func2"),
		goleak.IgnoreAnyFunction("github.com/valkey-io/valkey-go.(*call).DelayDo.func1"),
	)
}
