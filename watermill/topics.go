package watermill

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// maxName is the longest queue, stream, group or consumer name EchoMQ
// accepts ([A-Za-z0-9._-]{1,128}).
const maxName = 128

// escapeMark starts every escaped name. A name used verbatim never starts
// with it, so an escaped name cannot equal a verbatim one.
const escapeMark = '_'

// hashedKeep is how many bytes of the escaped form a hashed name keeps
// before its "_h<32 hex>" suffix: 1 + 93 + 2 + 32 = 128.
const hashedKeep = 93

// ErrInvalidTopic is matched by every [*TopicError].
var ErrInvalidTopic = errors.New("echomq/watermill: invalid topic")

// TopicError reports a topic (or consumer group) that cannot be mapped onto
// EchoMQ names. It matches [ErrInvalidTopic].
type TopicError struct {
	Topic  string
	Reason string
}

func (e *TopicError) Error() string {
	return fmt.Sprintf("echomq/watermill: topic %q: %s", e.Topic, e.Reason)
}

// Is reports whether target is [ErrInvalidTopic].
func (e *TopicError) Is(target error) bool { return target == ErrInvalidTopic }

// Location is where a topic lives: an EchoMQ queue (the cluster hash tag:
// every stream of one queue shares one slot) and a stream in it.
type Location struct {
	Queue, Stream string
}

// Topics maps a Watermill topic onto its [Location]. It must be a pure
// function: every publisher and subscriber of a topic must map it alike.
// [OneQueue] and [QueuePerFamily] are the two mappings provided; both
// store the topic as the stream name through [EscapeName].
type Topics func(topic string) (Location, error)

// OneQueue puts every topic in one queue: all topics share one cluster
// slot, which suits a standalone engine or a small cluster. The stream is
// EscapeName(topic); an empty topic is a [*TopicError].
func OneQueue(queue string) Topics {
	return func(topic string) (Location, error) {
		if topic == "" {
			return Location{}, &TopicError{Topic: topic, Reason: "empty"}
		}
		return Location{Queue: queue, Stream: EscapeName(topic)}, nil
	}
}

// QueuePerFamily puts each topic family in a queue of its own, so the
// families spread over a cluster while the topics of one family share a
// slot. The family is the topic up to the first of the separator bytes in
// seps (the whole topic when it has none): with seps ".", "orders.created"
// and "orders.paid" share the queue "orders" and "users.joined" lives in
// "users". The queue is EscapeQueue(family), the stream EscapeName(topic).
// An empty topic or family is a [*TopicError].
func QueuePerFamily(seps string) Topics {
	return func(topic string) (Location, error) {
		if topic == "" {
			return Location{}, &TopicError{Topic: topic, Reason: "empty"}
		}
		family := topic
		if i := strings.IndexAny(topic, seps); i >= 0 && seps != "" {
			family = topic[:i]
		}
		if family == "" {
			return Location{}, &TopicError{Topic: topic, Reason: "empty family (the topic starts with a separator)"}
		}
		return Location{Queue: EscapeQueue(family), Stream: EscapeName(topic)}, nil
	}
}

// EscapeName maps any non-empty string onto the EchoMQ name grammar
// [A-Za-z0-9._-]{1,128}, injectively:
//
//   - a string that matches the grammar and does not start with "_" is
//     used verbatim ("orders.created" stays "orders.created");
//   - any other string becomes "_" followed by the string with every byte
//     outside [A-Za-z0-9.-] written as "_" and two uppercase hex digits
//     ("orders/created" → "_orders_2Fcreated", "_tmp" → "__5Ftmp",
//     "a b" → "_a_20b");
//   - an escaped form longer than 128 bytes keeps its first 93 bytes and
//     appends "_h" and the first 32 hex digits of the SHA-256 of the
//     string ("_h" cannot occur in an escape, whose digits are uppercase).
//
// So two different topics never share a stream (the hashed form up to a
// 128-bit hash collision), and the names of ordinary topics are readable.
// The empty string maps to "_", which no other string maps to.
func EscapeName(s string) string {
	if verbatim(s) {
		return s
	}
	const hexdig = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteByte(escapeMark)
	for i := range len(s) {
		c := s[i]
		if nameByte(c) && c != escapeMark {
			b.WriteByte(c)
			continue
		}
		b.WriteByte(escapeMark)
		b.WriteByte(hexdig[c>>4])
		b.WriteByte(hexdig[c&0xF])
	}
	out := b.String()
	if len(out) <= maxName {
		return out
	}
	sum := sha256.Sum256([]byte(s))
	return out[:1+hashedKeep] + "_h" + hex.EncodeToString(sum[:16])
}

// EscapeQueue is [EscapeName] for queue names, which may not be "emq"
// either (the name is reserved for EchoMQ's own keys): "emq" becomes
// "_emq", which no other string maps to.
func EscapeQueue(s string) string {
	if s == "emq" {
		return "_emq"
	}
	return EscapeName(s)
}

// verbatim reports whether s can be used as a name as it is.
func verbatim(s string) bool {
	if s == "" || len(s) > maxName || s[0] == escapeMark {
		return false
	}
	for i := range len(s) {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

// nameByte reports whether c belongs to the name grammar.
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}
