package watermill_test

import (
	"testing"
	"time"

	wmill "github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/tests"

	"github.com/echomq/echomq"
	emqwm "github.com/echomq/echomq/watermill"
)

// suiteFeatures are the features we claim in Watermill's universal test
// suite; TestFeaturesDocumented checks that docs/watermill.md lists exactly
// these.
func suiteFeatures() tests.Features {
	return tests.Features{
		ConsumerGroups:                      true,
		ExactlyOnceDelivery:                 false,
		GuaranteedOrder:                     true,
		GuaranteedOrderWithSingleSubscriber: false,
		Persistent:                          true,
		RestartServiceCommand:               nil, // TestReconnect runs the scenario (reconnect_test.go)
		RequireSingleInstance:               false,
		NewSubscriberReceivesOldMessages:    true,
		GenerateTopicFunc:                   familyTopic,
		GenerateIDFunc:                      nil,
		ForceShort:                          false,
		ContextPreserved:                    false,
	}
}

// familyTopic names a test's topics "<test id>/events", so each test's
// topics form one family (one queue, one hash tag under QueuePerFamily)
// and every topic goes through the escape ('/' is outside the grammar).
func familyTopic(tctx tests.TestContext) string { return string(tctx.TestID) + "/events" }

// suiteTopics is the topic mapping of the suite's pub/subs.
var suiteTopics = emqwm.QueuePerFamily("/")

// suiteEnv is one run of the suite: a durable private engine with its
// restart command and one client shared by every pub/sub of the run
// (constructors are called often and in parallel, so they stay cheap).
type suiteEnv struct {
	client   *echomq.Client
	restarts *restarter
	command  []string
}

func newSuiteEnv(t *testing.T) *suiteEnv {
	srv := durableServer(t)
	r, cmd := newRestarter(t, srv)
	return &suiteEnv{client: connect(t, srv.URL()), restarts: r, command: cmd}
}

// Timings for a loaded 2-core machine: the ack deadline bounds how long a
// message whose delivery or ack the engine restart swallowed waits to be
// redelivered; the beat bounds Close.
const (
	suiteAckDeadline = 10 * time.Second
	suiteBeat        = 250 * time.Millisecond
)

func (e *suiteEnv) pubSub(t *testing.T, group string) (message.Publisher, message.Subscriber) {
	pub, err := emqwm.NewPublisher(&emqwm.PublisherConfig{Client: e.client, Topics: suiteTopics})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := emqwm.NewSubscriber(&emqwm.SubscriberConfig{
		Client: e.client, Topics: suiteTopics, ConsumerGroup: group,
		AckDeadline: suiteAckDeadline, Beat: suiteBeat,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Some scenarios never close what they made (the in-order test
	// closes its multiplied subscriber before it subscribes); Close is
	// idempotent, so every pub/sub is closed at the end of its test.
	t.Cleanup(func() { _ = pub.Close(); _ = sub.Close() })
	return pub, sub
}

// runSuite runs tests.TestPubSub with the plain constructor given.
func runSuite(t *testing.T, plain func(e *suiteEnv) tests.PubSubConstructor) {
	e := newSuiteEnv(t)
	grouped := func(t *testing.T, group string) (message.Publisher, message.Subscriber) {
		return e.pubSub(t, group)
	}
	t.Run("suite", func(t *testing.T) {
		tests.TestPubSub(t, suiteFeatures(), plain(e), grouped)
	})
}

// TestPubSub runs Watermill's universal suite over consumer groups: each
// pub/sub the plain constructor makes is a member of a fresh group, so
// each reads the whole topic (as watermill-redisstream runs it), and the
// suite's consumer-group constructor joins the group it names.
func TestPubSub(t *testing.T) {
	t.Parallel()
	runSuite(t, func(e *suiteEnv) tests.PubSubConstructor {
		return func(t *testing.T) (message.Publisher, message.Subscriber) {
			return e.pubSub(t, "g-"+wmill.NewShortUUID())
		}
	})
}

// TestPubSubFanOut runs the suite with plain pub/subs in fan-out (no
// group): every Subscribe follows the stream from its head.
func TestPubSubFanOut(t *testing.T) {
	t.Parallel()
	runSuite(t, func(e *suiteEnv) tests.PubSubConstructor {
		return func(t *testing.T) (message.Publisher, message.Subscriber) {
			return e.pubSub(t, "")
		}
	})
}
