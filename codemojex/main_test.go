package codemojex

import (
	"os"
	"testing"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		// The re-executed test binary of a crash test: see helperMain.
		os.Exit(helperMain())
	}
	echomqtest.MainWithLeakCheck(m)
}
