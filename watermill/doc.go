// Package watermill is a Watermill (github.com/ThreeDotsLabs/watermill)
// Pub/Sub on EchoMQ streams: [Publisher] implements message.Publisher and
// [Subscriber] message.Subscriber, so Watermill handlers, routers and
// middlewares run on EchoMQ without a rewrite.
//
// A topic is a stream ([Topics] maps it, escaping names the EchoMQ grammar
// refuses; [QueuePerFamily] gives each topic family its own cluster hash
// tag). Each message is one entry: EchoMQ's branded receipt in the "id"
// field, then the Watermill UUID, the payload and one field per metadata
// key ([DefaultMarshaler]).
//
// With [SubscriberConfig.ConsumerGroup] set, subscribers are members of an
// EchoMQ consumer group: each message goes to one member, Ack acknowledges
// it, Nack redelivers it at once, a message held past its ack deadline or
// left by a crashed process is redelivered, and a message that used up
// MaxDeliveries moves to the stream's dead letters ([echomq.DeadLetters]).
// Without a group every Subscribe reads the whole stream (fan-out). Either
// way a subscription receives its topic in stream order, one message at a
// time, with the delivery count in [MetaAttempts].
//
// The package passes Watermill's universal Pub/Sub test suite
// (pubsub/tests.TestPubSub) with the features ConsumerGroups, Persistent,
// GuaranteedOrder, NewSubscriberReceivesOldMessages and
// RestartServiceCommand; see docs/watermill.md in the repository.
//
// The package lives in a module of its own, so the EchoMQ core never
// depends on Watermill.
package watermill
