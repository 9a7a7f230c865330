package watermill

import (
	"slices"
	"strings"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/echomq/echomq"
)

// Field names of the [DefaultMarshaler] layout. The branded receipt is the
// entry's own "id" field, written by EchoMQ; these travel beside it.
const (
	// FieldUUID holds the Watermill message UUID.
	FieldUUID = "uuid"
	// FieldPayload holds the payload bytes.
	FieldPayload = "payload"
	// FieldMetaPrefix prefixes one field per metadata key: "meta:<key>".
	FieldMetaPrefix = "meta:"
)

// Metadata keys the subscriber sets on every message it delivers. They
// describe the delivery, not the message, so the [DefaultMarshaler] does
// not publish them again (a router that forwards a message does not carry
// the old delivery's values into the new stream).
const (
	// MetaID is the record's branded receipt (an EVT id); empty for entries
	// another program appended without one.
	MetaID = "echomq_id"
	// MetaEntry is the stream entry id ("<ms>-<seq>").
	MetaEntry = "echomq_entry"
	// MetaAttempts is the delivery count, this delivery included: the
	// engine's count (deliveries after crashes, ack deadlines and closes)
	// plus the immediate redeliveries after Nack.
	MetaAttempts = "echomq_attempts"
)

// Marshaler turns a Watermill message into the payload of a stream entry.
// The fields must not be named "id" (EchoMQ's receipt field).
type Marshaler interface {
	Marshal(topic string, msg *message.Message) (echomq.Fields, error)
}

// Unmarshaler turns a stream entry back into a Watermill message. An error
// makes the entry a failed delivery: in a group it is dead-lettered once
// its deliveries are used up.
type Unmarshaler interface {
	Unmarshal(ev echomq.Event) (*message.Message, error)
}

// MarshalerUnmarshaler is both.
type MarshalerUnmarshaler interface {
	Marshaler
	Unmarshaler
}

// DefaultMarshaler stores a message as plain fields, readable by any EchoMQ
// reader (the CLI, projections, consumers in other languages):
//
//	id <EVT receipt> uuid <UUID> payload <bytes> meta:<key> <value> …
//
// with the metadata keys in byte order, the delivery keys [MetaID],
// [MetaEntry] and [MetaAttempts] left out. Unmarshal reverses it; fields of
// entries other programs appended (no "uuid", domain fields such as
// "room") are read as metadata under their own names, the UUID then being
// the branded receipt, or the entry id when the entry has none.
type DefaultMarshaler struct{}

// Marshal implements [Marshaler].
func (DefaultMarshaler) Marshal(_ string, msg *message.Message) (echomq.Fields, error) {
	f := make(echomq.Fields, 0, 4+2*len(msg.Metadata))
	f = append(f, FieldUUID, msg.UUID, FieldPayload, string(msg.Payload))
	keys := make([]string, 0, len(msg.Metadata))
	for k := range msg.Metadata {
		if !deliveryKey(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		f = append(f, FieldMetaPrefix+k, msg.Metadata[k])
	}
	return f, nil
}

// Unmarshal implements [Unmarshaler].
func (DefaultMarshaler) Unmarshal(ev echomq.Event) (*message.Message, error) {
	var (
		uuid    string
		hasUUID bool
		payload []byte
		meta    = make(message.Metadata, len(ev.Fields)/2)
	)
	for i := 0; i+1 < len(ev.Fields); i += 2 {
		name, value := ev.Fields[i], ev.Fields[i+1]
		switch {
		case name == FieldUUID && !hasUUID:
			uuid, hasUUID = value, true
		case name == FieldPayload && payload == nil:
			payload = []byte(value)
		case strings.HasPrefix(name, FieldMetaPrefix):
			meta[name[len(FieldMetaPrefix):]] = value
		default:
			if _, dup := meta[name]; !dup {
				meta[name] = value
			}
		}
	}
	if !hasUUID {
		uuid = ev.ID.String()
		if ev.ID.IsZero() {
			uuid = ev.Entry.String()
		}
	}
	msg := message.NewMessage(uuid, payload)
	msg.Metadata = meta
	return msg, nil
}

func deliveryKey(k string) bool { return k == MetaID || k == MetaEntry || k == MetaAttempts }
