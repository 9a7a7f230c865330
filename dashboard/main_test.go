package dashboard_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) {
	echomqtest.MainWithLeakCheck(m,
		// valkey-go closes the connections a cluster topology refresh
		// dropped after a fixed delay (5 s), from a goroutine of its own that
		// ends by itself (TestCluster).
		goleak.IgnoreAnyFunction("github.com/valkey-io/valkey-go.(*clusterClient)._refresh.func2"),
	)
}
