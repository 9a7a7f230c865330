package watermill_test

import (
	"context"
	"math/rand/v2"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	wmill "github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/subscriber"
	"github.com/ThreeDotsLabs/watermill/pubsub/tests"
)

// Watermill's reconnect scenario (tests.TestReconnect in v1.5.1), with the
// numbers, pacing and checks of the original. The original collects the
// published messages in a goroutine of its own and compares them with the
// received ones the moment the last message arrives, without waiting for
// that goroutine: a data race (-race reports it for any Pub/Sub), and a
// Pub/Sub whose subscribers see a message before its Publish returned (ours
// do: a blocked read is answered in the engine step that appends) fails now
// and then with one message fewer "sent" than received. This copy records
// each published message under a lock and compares once every publisher
// is done, so it runs in race builds too; the suite runs without a restart
// command, which skips the original and only it.
const (
	reconnectMessages   = 10000
	reconnectPublishers = 100
)

// TestReconnect restarts the engine (SIGKILL, then the same port and data)
// at a third and at half of 10,000 messages sent by 100 publishers, over
// a consumer group and in fan-out: every message published is received,
// none that was not.
func TestReconnect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, group string }{
		{"group", "g-" + wmill.NewShortUUID()},
		{"fan-out", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newSuiteEnv(t)
			pub, sub := e.pubSub(t, tc.group)
			reconnectScenario(t, e, pub, sub)
			if got := e.restarts.n.Load(); got != 2 {
				t.Errorf("the engine restarted %d times, want 2", got)
			}
		})
	}
}

func reconnectScenario(t *testing.T, e *suiteEnv, pub message.Publisher, sub message.Subscriber) {
	// Publishers stop when the scenario gives up, not only at the test's end.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	topic := familyTopic(tests.TestContext{TestID: tests.NewTestID()})
	if si, ok := sub.(message.SubscribeInitializer); ok {
		if err := si.SubscribeInitialize(topic); err != nil {
			t.Fatal(err)
		}
	}
	received, err := sub.Subscribe(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}

	var (
		next       atomic.Int64
		mu         sync.Mutex
		published  message.Messages
		publishers sync.WaitGroup
		restarts   sync.WaitGroup
	)
	restartAt := map[int64]bool{reconnectMessages / 3: true, reconnectMessages / 2: true}
	for range reconnectPublishers {
		publishers.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= reconnectMessages {
					return
				}
				if restartAt[i] {
					restarts.Go(func() { restartEngine(ctx, t, e.command) })
				}
				msg := message.NewMessage(wmill.NewUUID(), []byte("x"))
				if !publishUntilStored(ctx, t, pub, topic, msg) {
					return
				}
				mu.Lock()
				published = append(published, msg)
				mu.Unlock()
			}
		})
	}

	got, all := subscriber.BulkReadWithDeduplication(received, reconnectMessages, 60*time.Second)
	if !all {
		cancel()
	}
	publishers.Wait()
	restarts.Wait()
	if !all {
		t.Errorf("not all messages received (has %d of %d)", len(got), reconnectMessages)
	}
	mu.Lock()
	defer mu.Unlock()
	tests.AssertAllMessagesReceived(t, published, got)
	if err := pub.Close(); err != nil {
		t.Error(err)
	}
	if err := sub.Close(); err != nil {
		t.Error(err)
	}
}

// publishUntilStored publishes msg as the original's publishers do: now and
// then after a pause of 500ms, and again 500ms after a failed try (its
// publishWithRetry makes five quick tries). The pauses spread the 10,000
// messages over both restarts. It reports false once ctx ended.
func publishUntilStored(ctx context.Context, t *testing.T, pub message.Publisher, topic string, msg *message.Message) bool {
	for {
		if rand.IntN(10) == 0 && !pause(ctx, 500*time.Millisecond) {
			return false
		}
		var err error
		for range 5 {
			if err = pub.Publish(topic, msg); err == nil {
				return true
			}
		}
		t.Logf("cannot publish message %s, trying again: %v", msg.UUID, err)
		if !pause(ctx, 500*time.Millisecond) {
			return false
		}
	}
}

// pause waits d, or until ctx ends (false).
func pause(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// restartEngine runs the restart command, as the original's restartServer
// does.
func restartEngine(ctx context.Context, t *testing.T, command []string) {
	if err := exec.CommandContext(ctx, command[0], command[1:]...).Run(); err != nil {
		t.Errorf("restart command: %v", err)
	}
}
