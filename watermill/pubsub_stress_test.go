//go:build stress

package watermill_test

import (
	"testing"

	wmill "github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/tests"
)

// TestPubSubStress runs STRESS_TEST_COUNT (default 10) copies of the suite
// at once on one engine, with the suite's timeouts ×5 and GOMAXPROCS ×2
// (the stress tag does both inside the suite); outside race builds every
// copy runs the original reconnect scenario too, which restarts the shared
// engine twice (that scenario's own race, see reconnect_test.go, can fail a
// copy now and then):
//
//	cd watermill && go test -tags=stress -run TestPubSubStress -timeout 45m -v .
func TestPubSubStress(t *testing.T) {
	e := newSuiteEnv(t)
	features := suiteFeatures()
	if !raceEnabled {
		features.RestartServiceCommand = e.command
	}
	plain := func(t *testing.T) (message.Publisher, message.Subscriber) {
		return e.pubSub(t, "g-"+wmill.NewShortUUID())
	}
	grouped := func(t *testing.T, group string) (message.Publisher, message.Subscriber) {
		return e.pubSub(t, group)
	}
	t.Run("suite", func(t *testing.T) {
		tests.TestPubSubStressTest(t, features, plain, grouped)
	})
	t.Logf("engine restarts: %d", e.restarts.n.Load())
}
