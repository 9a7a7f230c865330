package keyspace

import (
	"fmt"
	"slices"
	"strings"
)

// Tag limits: a tag is key=value, the key in the name grammar of at most
// MaxTagKey bytes, the value 1..MaxTagValue bytes of anything but control
// bytes, space and ',' (the separator of the stored list); an event
// carries at most MaxTags.
const (
	MaxTagKey   = 64
	MaxTagValue = 128
	MaxTags     = 16
)

// TagError is a tag or a tag list that breaks the grammar.
type TagError struct {
	Tag    string
	Reason string
}

func (e *TagError) Error() string {
	if e.Tag == "" {
		return "tags: " + e.Reason
	}
	return fmt.Sprintf("tag %q: %s", truncate(e.Tag), e.Reason)
}

// Tag checks one tag "key=value".
func Tag(tag string) error {
	k, v, ok := strings.Cut(tag, "=")
	if !ok {
		return &TagError{Tag: tag, Reason: "want key=value"}
	}
	if k == "" || len(k) > MaxTagKey {
		return &TagError{Tag: tag, Reason: fmt.Sprintf("key length must be 1..%d bytes", MaxTagKey)}
	}
	for i := range len(k) {
		if !nameByte(k[i]) {
			return &TagError{Tag: tag, Reason: fmt.Sprintf("key byte %q at %d is outside [A-Za-z0-9._-]", k[i:i+1], i)}
		}
	}
	if v == "" || len(v) > MaxTagValue {
		return &TagError{Tag: tag, Reason: fmt.Sprintf("value length must be 1..%d bytes", MaxTagValue)}
	}
	for i := range len(v) {
		if c := v[i]; c <= ' ' || c == ',' || c == 0x7f {
			return &TagError{Tag: tag, Reason: fmt.Sprintf("value byte %q at %d is a control byte, a space or ','", v[i:i+1], i)}
		}
	}
	return nil
}

// Tags checks a tag list and returns it canonical (sorted, each tag once)
// and joined by ',' as an entry stores it. An empty list is allowed here
// (callers that need tags say so).
func Tags(tags []string) ([]string, string, error) {
	if len(tags) > MaxTags {
		return nil, "", &TagError{Reason: fmt.Sprintf("%d tags: at most %d", len(tags), MaxTags)}
	}
	for _, t := range tags {
		if err := Tag(t); err != nil {
			return nil, "", err
		}
	}
	c := slices.Clone(tags)
	slices.Sort(c)
	c = slices.Compact(c)
	return c, strings.Join(c, ","), nil
}

// ParseTags splits a stored tag list; "" is none.
func ParseTags(joined string) []string {
	if joined == "" {
		return nil
	}
	return strings.Split(joined, ",")
}

// DCBPrefix returns "emq:{q}:", the prefix the dcb scripts build the
// queue's stream and index keys from.
func DCBPrefix(q string) string { return QueueKey(q, "") }

// DCBPosKey returns "emq:{q}:dcb:pos", the counter of the queue's
// positions (one per tagged event).
func DCBPosKey(q string) string { return QueueKey(q, "dcb:pos") }

// DCBFloorKey returns "emq:{q}:dcb:floor", the hash of each stream's
// highest trimmed position: reads and conditions from below it are refused.
func DCBFloorKey(q string) string { return QueueKey(q, "dcb:floor") }

// DCBTypesKey returns "emq:{q}:dcb:types", the set of the queue's streams
// that hold tagged events.
func DCBTypesKey(q string) string { return QueueKey(q, "dcb:types") }

// DCBIndexKey returns "emq:{q}:dcb:ix:<stream>:<tag>", the list of pairs
// (position, entry id) of stream's events carrying tag, in position order
// (wire.DCBIndexKey builds the same name from the queue's prefix). A stream
// name holds no ':', so the key names one (stream, tag) pair.
func DCBIndexKey(q, stream, tag string) string { return QueueKey(q, "dcb:ix:"+stream+":"+tag) }
