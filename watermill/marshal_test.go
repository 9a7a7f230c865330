package watermill_test

import (
	"bytes"
	"maps"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/echomq/echomq"
	emqwm "github.com/echomq/echomq/watermill"
)

func TestDefaultMarshaler(t *testing.T) {
	t.Parallel()
	m := emqwm.DefaultMarshaler{}
	msg := message.NewMessage("uuid-1", []byte("\x00payload\xff"))
	msg.Metadata.Set("b", "2")
	msg.Metadata.Set("a", "1")
	msg.Metadata.Set("id", "not the receipt")
	msg.Metadata.Set(emqwm.MetaAttempts, "7") // a delivery key: not published
	f, err := m.Marshal("t", msg)
	if err != nil {
		t.Fatal(err)
	}
	want := echomq.F("uuid", "uuid-1", "payload", "\x00payload\xff", "meta:a", "1", "meta:b", "2", "meta:id", "not the receipt")
	if !equalFields(f, want) {
		t.Fatalf("Marshal = %q, want %q", f, want)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	back, err := m.Unmarshal(echomq.Event{Fields: f})
	if err != nil {
		t.Fatal(err)
	}
	if back.UUID != "uuid-1" || !bytes.Equal(back.Payload, msg.Payload) ||
		!maps.Equal(back.Metadata, message.Metadata{"a": "1", "b": "2", "id": "not the receipt"}) {
		t.Fatalf("Unmarshal = %s %q %v", back.UUID, back.Payload, back.Metadata)
	}
}

func TestUnmarshalForeignEvent(t *testing.T) {
	t.Parallel()
	id := echomq.MustID(echomq.BrandEvent, echomq.Snowflake(1<<22))
	ev := echomq.Event{ID: id, Entry: id.EntryID(), Fields: echomq.F("room", "ROM1", "points", "480", "meta:x", "y")}
	msg, err := emqwm.DefaultMarshaler{}.Unmarshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if msg.UUID != id.String() || msg.Payload != nil ||
		!maps.Equal(msg.Metadata, message.Metadata{"room": "ROM1", "points": "480", "x": "y"}) {
		t.Fatalf("got %s %q %v", msg.UUID, msg.Payload, msg.Metadata)
	}
	// Without a receipt the entry id names the message.
	ev = echomq.Event{Entry: id.EntryID(), Fields: echomq.F("k", "v")}
	if msg, _ = (emqwm.DefaultMarshaler{}).Unmarshal(ev); msg.UUID != id.EntryID().String() {
		t.Fatalf("UUID = %q, want the entry id", msg.UUID)
	}
}

// FuzzDefaultMarshaler checks the round trip of any UUID, payload and
// metadata pair, and that the fields never name the receipt.
func FuzzDefaultMarshaler(f *testing.F) {
	f.Add("u", []byte("p"), "k", "v")
	f.Add("", []byte{}, "", "")
	f.Add("id", []byte("\x00"), "id", "meta:id")
	f.Fuzz(func(t *testing.T, uuid string, payload []byte, k, v string) {
		m := emqwm.DefaultMarshaler{}
		msg := message.NewMessage(uuid, payload)
		msg.Metadata.Set(k, v)
		fs, err := m.Marshal("t", msg)
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.Validate(); err != nil {
			t.Fatal(err)
		}
		back, err := m.Unmarshal(echomq.Event{Fields: fs})
		if err != nil {
			t.Fatal(err)
		}
		want := message.Metadata{k: v}
		if k == emqwm.MetaID || k == emqwm.MetaEntry || k == emqwm.MetaAttempts {
			want = message.Metadata{}
		}
		if back.UUID != uuid || !bytes.Equal(back.Payload, payload) || !maps.Equal(back.Metadata, want) {
			t.Fatalf("round trip: %q %q %v → %q %q %v", uuid, payload, msg.Metadata, back.UUID, back.Payload, back.Metadata)
		}
	})
}

func equalFields(a, b echomq.Fields) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
