package wire

import (
	"testing"
	"unsafe"

	"github.com/valkey-io/valkey-go"
)

// fakeMessage mirrors the layout of valkey.ValkeyMessage (valkey-go
// v1.0.79), so the fuzz targets can build replies of any shape without an
// engine: the decoders must survive whatever a server, a proxy or a
// corrupted connection hands them. The layout is checked before use.
type fakeMessage struct {
	attrs  *valkey.ValkeyMessage
	bytes  *byte
	array  *valkey.ValkeyMessage
	intlen int64
	typ    byte
	ttl    [7]byte
}

func layoutMatches() bool {
	return unsafe.Sizeof(fakeMessage{}) == unsafe.Sizeof(valkey.ValkeyMessage{})
}

func asMessage(f *fakeMessage) valkey.ValkeyMessage {
	return *(*valkey.ValkeyMessage)(unsafe.Pointer(f))
}

func strMsg(typ byte, s string) valkey.ValkeyMessage {
	f := &fakeMessage{typ: typ, intlen: int64(len(s))}
	if len(s) > 0 {
		f.bytes = unsafe.StringData(s)
	}
	return asMessage(f)
}

func arrMsg(typ byte, items []valkey.ValkeyMessage) valkey.ValkeyMessage {
	f := &fakeMessage{typ: typ, intlen: int64(len(items))}
	if len(items) > 0 {
		f.array = &items[0]
	}
	return asMessage(f)
}

// buildMessage turns fuzz bytes into a reply tree: each byte picks a kind
// (blob, simple string, integer, null, array, map, error) and the following
// bytes its content, nesting at most depth levels.
func buildMessage(data []byte, depth int) (valkey.ValkeyMessage, []byte) {
	if len(data) == 0 {
		return strMsg('_', ""), nil
	}
	k, data := data[0], data[1:]
	take := func() string {
		if len(data) == 0 {
			return ""
		}
		n := int(data[0]) % 24
		data = data[1:]
		n = min(n, len(data))
		s := string(data[:n])
		data = data[n:]
		return s
	}
	switch k % 8 {
	case 0:
		return strMsg('$', take()), data
	case 1:
		return strMsg('+', take()), data
	case 2:
		n := int64(0)
		for _, c := range []byte(take()) {
			n = n*31 + int64(c) - 64
		}
		return asMessage(&fakeMessage{typ: ':', intlen: n}), data
	case 3:
		return strMsg('_', ""), data
	case 4, 5:
		if depth == 0 {
			return strMsg('$', take()), data
		}
		n := 0
		if len(data) > 0 {
			n, data = int(data[0])%12, data[1:]
		}
		typ := byte('*')
		if k%8 == 5 {
			typ, n = '%', n&^1
		}
		items := make([]valkey.ValkeyMessage, n)
		for i := range items {
			items[i], data = buildMessage(data, depth-1)
		}
		return arrMsg(typ, items), data
	case 6:
		return strMsg('-', "ERR "+take()), data
	}
	return strMsg('$', take()), data
}

// FuzzReplyDecoders feeds arbitrary reply trees to every reply decoder:
// none may panic, whatever the shape.
func FuzzReplyDecoders(f *testing.F) {
	if !layoutMatches() {
		f.Skip("valkey.ValkeyMessage layout changed: update fakeMessage")
	}
	f.Add([]byte{4, 2, 0, 5, '0', '-', '0', 4, 1, 4, 2, 0, 3, '1', '-', '1', 4, 2, 0, 2, 'i', 'd', 0, 1, 'x'})
	f.Add([]byte{4, 4, 0, 3, '1', '-', '0', 0, 1, 'c', 2, 1, 'A', 2, 1, 'B'})
	f.Add([]byte{4, 11, 0, 1, 'a', 0, 1, 'b', 2, 1, 'C', 2, 1, 'D', 2, 1, 'E', 2, 1, 'F', 2, 1, 'G', 2, 1, 'H'})
	f.Add([]byte{5, 4, 0, 4, 'n', 'a', 'm', 'e', 0, 1, 'g', 0, 3, 'l', 'a', 'g', 2, 1, 'Z'})
	f.Add([]byte{4, 3, 0, 2, 'o', 'k', 2, 1, 'C', 2, 1, 'A'})
	// append script replies: {'ok', sec, usec, refused, foreign, receipt} and {'dup', receipts}
	f.Add([]byte{4, 6, 0, 2, 'o', 'k', 0, 1, '1', 0, 1, '2', 2, 1, '@', 2, 1, '@', 0, 3, 'E', 'V', 'T'})
	f.Add([]byte{4, 2, 0, 3, 'd', 'u', 'p', 0, 3, 'E', 'V', 'T'})
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, _ := buildMessage(data, 4)
		arr, _ := msg.ToArray()
		_, _ = decodeAutoClaim(arr)
		_, _ = decodePendingRows(arr)
		_, _ = decodeInfoGroups(arr)
		_, _ = decodeInfoConsumers(arr)
		_, _ = decodeEntries(arr)
		_, _ = decodeStreamsReply(msg)
		_ = decodeLaneRows(arr)
		_, _ = decodeLaneClaim(msg)
		_, _ = decodeLaneVerdict(msg)
		_, _ = decodeLaneStats(msg)
		_, _ = decodeLaneJobs(msg)
		_, _ = decodeLaneJob(msg)
		if len(data) > 0 {
			_, _ = decodeLaneEnqueue(msg, int(data[0])%8)
		}
		if rep, err := decodeAppend(arr); err == nil && rep.Status == AppendOK && len(arr) != 5+len(rep.Receipts) {
			t.Fatalf("append reply of %d elements decoded to %d receipts", len(arr), len(rep.Receipts))
		}
		if st, _, err := decodeAppendKeyed(arr); err == nil && st != AppendOK && st != AppendDup && st != AppendNonMono {
			t.Fatalf("keyed append reply accepted with status %q", st)
		}
		if v, err := msg.ToAny(); err == nil {
			if g, err := decodeTrimGuard(v); err == nil && g.Refused == "" && (g.Removed < 0 || g.Unarchived > g.Removed) {
				t.Fatalf("accepted impossible counts %+v", g)
			}
		}
	})
}
