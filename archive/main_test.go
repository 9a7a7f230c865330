package archive_test

import (
	"testing"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) {
	if helperMain() {
		return
	}
	echomqtest.MainWithLeakCheck(m)
}
