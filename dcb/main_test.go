package dcb_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) {
	echomqtest.MainWithLeakCheck(m,
		goleak.IgnoreAnyFunction("github.com/valkey-io/valkey-go.(*clusterClient)._refresh.func2"),
	)
}
