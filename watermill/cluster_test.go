package watermill_test

import (
	"context"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/echomq/echomq/echomqtest"
	emqwm "github.com/echomq/echomq/watermill"
)

// TestCluster runs publishers and a group subscriber on a 3-master Redis
// Cluster with one queue per topic family: each family's stream, group and
// dead letters share its hash tag, and the families spread over the slots.
func TestCluster(t *testing.T) {
	t.Parallel()
	c := echomqtest.StartCluster(t)
	client := connect(t, c.URL())
	topics := emqwm.QueuePerFamily(".")
	pub, err := emqwm.NewPublisher(&emqwm.PublisherConfig{Client: client, Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	sub, err := emqwm.NewSubscriber(&emqwm.SubscriberConfig{Client: client, Topics: topics, ConsumerGroup: "g", Beat: suiteBeat})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	families := []string{"orders.created", "users.joined", "billing.paid", "audit/trail"}
	keys := map[string]bool{}
	for _, topic := range families {
		loc, err := topics(topic)
		if err != nil {
			t.Fatal(err)
		}
		keys[client.Stream(loc.Queue, loc.Stream).Key()] = true
		ch, err := sub.Subscribe(context.Background(), topic)
		if err != nil {
			t.Fatal(err)
		}
		sent := []*message.Message{message.NewMessage(topic+"-1", []byte("a")), message.NewMessage(topic+"-2", []byte("b"))}
		if err := pub.Publish(topic, sent...); err != nil {
			t.Fatal(err)
		}
		for _, want := range sent {
			m := next(t, ch)
			if m.UUID != want.UUID {
				t.Fatalf("%s: got %s, want %s", topic, m.UUID, want.UUID)
			}
			m.Ack()
		}
	}
	for _, k := range []string{
		"emq:{orders}:stream:orders.created", "emq:{users}:stream:users.joined",
		"emq:{billing}:stream:billing.paid", "emq:{_audit_2Ftrail}:stream:_audit_2Ftrail",
	} {
		if !keys[k] {
			t.Errorf("no stream %s among %v", k, keys)
		}
	}
}
