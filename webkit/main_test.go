package webkit_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test of the package ends with no goroutine of its own left: an
// event stream that outlived its request would show here.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
