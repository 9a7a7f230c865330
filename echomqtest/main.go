package echomqtest

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Main runs the tests of m, then stops every server this package started
// (the shared one and any still running), removes their temporary
// directories, and exits with the tests' exit code. Use it from TestMain:
//
//	func TestMain(m *testing.M) { echomqtest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	stopAll()
	os.Exit(code)
}

// MainWithLeakCheck is [Main] plus a goroutine leak check: if the tests
// passed, it looks for leaked goroutines with goleak.Find after the servers
// are stopped (goroutines of the testing framework and the runtime are
// ignored, as are those matched by opts) and, if any are found, prints them
// and exits with code 1.
//
//	func TestMain(m *testing.M) { echomqtest.MainWithLeakCheck(m) }
func MainWithLeakCheck(m *testing.M, opts ...goleak.Option) {
	code := m.Run()
	stopAll()
	if code == 0 {
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintf(os.Stderr, "echomqtest: goroutines leaked by the tests:\n%v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// stopAll stops every live server (private servers whose tb.Cleanup did not
// run yet included) and the spawner goroutine.
func stopAll() {
	regMu.Lock()
	live := make([]*Server, 0, len(regLive))
	for s := range regLive {
		live = append(live, s)
	}
	regMu.Unlock()
	done := make(chan struct{}, len(live))
	for _, s := range live {
		go func() {
			s.stop()
			done <- struct{}{}
		}()
	}
	for range live {
		<-done
	}
	stopSpawner()
}
