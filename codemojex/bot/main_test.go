package bot_test

import (
	"os"
	"testing"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	echomqtest.MainWithLeakCheck(m)
}
