package keyspace

import (
	"errors"
	"fmt"
	"strconv"
)

// MaxNameLen is the longest queue or stream name.
const MaxNameLen = 128

// ErrInvalidName is matched by every [*NameError].
var ErrInvalidName = errors.New("echomq: invalid name")

// NameError says which name broke which rule of the grammar.
type NameError struct {
	Kind   string // "queue", "stream", "group", "consumer", ...
	Name   string
	Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("echomq: invalid %s name %q: %s", e.Kind, e.Name, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidName) true.
func (e *NameError) Is(target error) bool { return target == ErrInvalidName }

// Name checks a name of the given kind against [A-Za-z0-9._-]{1,128}.
func Name(kind, name string) error {
	if name == "" {
		return &NameError{Kind: kind, Name: name, Reason: "must not be empty"}
	}
	if len(name) > MaxNameLen {
		return &NameError{Kind: kind, Name: truncate(name), Reason: "longer than " + strconv.Itoa(MaxNameLen) + " bytes"}
	}
	for i := range len(name) {
		if !nameByte(name[i]) {
			return &NameError{Kind: kind, Name: name, Reason: fmt.Sprintf("byte %q at %d is outside [A-Za-z0-9._-]", name[i:i+1], i)}
		}
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// Queue checks a queue name: the grammar, and not the reserved "emq".
func Queue(q string) error {
	if err := Name("queue", q); err != nil {
		return err
	}
	if q == "emq" {
		return &NameError{Kind: "queue", Name: q, Reason: `"emq" is reserved for cross-queue keys`}
	}
	return nil
}

// Stream checks a stream name.
func Stream(name string) error { return Name("stream", name) }

// QueueKey returns "emq:{q}:<typ>". Callers have checked q.
func QueueKey(q, typ string) string { return "emq:{" + q + "}:" + typ }

// Reserve returns the cross-queue key "{emq}:<suffix>".
func Reserve(suffix string) string { return "{emq}:" + suffix }

// StreamKey returns "emq:{q}:stream:<name>".
func StreamKey(q, name string) string { return QueueKey(q, "stream:"+name) }

// ArchivedKey returns "emq:{q}:stream:<name>:archived", the archive
// watermark cache.
func ArchivedKey(q, name string) string { return StreamKey(q, name) + ":archived" }

// DeadKey returns "emq:{q}:stream:<name>:dead", the dead-letter stream of the
// stream's consumer groups.
func DeadKey(q, name string) string { return StreamKey(q, name) + ":dead" }

// VersionKey returns "{emq}:version", the interop version fence.
func VersionKey() string { return Reserve("version") }

// NodeKey returns "emq:{q}:node:<n>", the lease of node id n in queue q:
// node ids are leased per queue, so that a user confined to its queues'
// keys can lease one and cannot exhaust another tenant's.
func NodeKey(q string, n int) string { return QueueKey(q, "node:"+strconv.Itoa(n)) }

// HashTag returns the part of key that selects its cluster slot: the bytes
// between the first "{" and the first "}" after it when that is non-empty,
// else the whole key.
func HashTag(key string) string {
	for i := range len(key) {
		if key[i] != '{' {
			continue
		}
		for j := i + 1; j < len(key); j++ {
			if key[j] == '}' {
				if j == i+1 {
					return key
				}
				return key[i+1 : j]
			}
		}
		return key
	}
	return key
}

// Slot returns the cluster slot of key: CRC16-XMODEM of its hash tag mod
// 16384.
func Slot(key string) int { return int(crc16(HashTag(key)) % 16384) }

// crc16 is CRC16-XMODEM (polynomial 0x1021, initial value 0), the checksum
// Redis Cluster uses for slots.
func crc16(s string) uint16 {
	var crc uint16
	for i := range len(s) {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// EngineCellKey returns the queue's engine id cells, the hash "emq:{q}:ids":
// the last ids the append scripts chose for the queue under the engine's
// node (field "n" near the clock, "a" following a top ahead of it), so that
// no id they choose repeats within the queue.
func EngineCellKey(q string) string { return QueueKey(q, "ids") }
