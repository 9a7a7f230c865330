package codemojex

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		// The re-executed test binary of a crash test: see helperMain.
		os.Exit(helperMain())
	}
	echomqtest.MainWithLeakCheck(m,
		// valkey-go closes the connections a cluster topology refresh
		// dropped after a fixed delay, from a goroutine of its own that ends
		// by itself (the sharded game's cluster test).
		goleak.IgnoreAnyFunction("github.com/valkey-io/valkey-go.(*clusterClient)._refresh.func2"),
	)
}
