package echomq

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// encodePayload writes the fields of a dead entry's original as the JSON
// array of its [name, value] pairs, in stored order:
//
//	[["room","ROM1"],["points","480"]]
//
// Field names and values are binary-safe, JSON strings are not: a name or
// value that is not valid UTF-8 is written as {"base64":"<std encoding>"}
// in its place, so the payload always decodes back to the same bytes.
func encodePayload(f Fields) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i+1 < len(f); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		writePayloadString(&b, f[i])
		b.WriteByte(',')
		writePayloadString(&b, f[i+1])
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

func writePayloadString(b *strings.Builder, s string) {
	if utf8.ValidString(s) {
		enc, _ := json.Marshal(s) // a valid string always encodes
		b.Write(enc)
		return
	}
	b.WriteString(`{"base64":"`)
	b.WriteString(base64.StdEncoding.EncodeToString([]byte(s)))
	b.WriteString(`"}`)
}

// decodePayload reads what encodePayload wrote. It returns an error for
// anything else.
func decodePayload(s string) (Fields, error) {
	var pairs [][]json.RawMessage
	if err := json.Unmarshal([]byte(s), &pairs); err != nil {
		return nil, fmt.Errorf("echomq: decode dead-letter payload: %w", err)
	}
	f := make(Fields, 0, 2*len(pairs))
	for _, p := range pairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("echomq: decode dead-letter payload: a pair has %d elements", len(p))
		}
		for _, raw := range p {
			v, err := decodePayloadString(raw)
			if err != nil {
				return nil, err
			}
			f = append(f, v)
		}
	}
	return f, nil
}

func decodePayloadString(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var bin struct {
		Base64 *string `json:"base64"`
	}
	if err := json.Unmarshal(raw, &bin); err != nil || bin.Base64 == nil {
		return "", fmt.Errorf("echomq: decode dead-letter payload: %s is neither a string nor {\"base64\": …}", raw)
	}
	b, err := base64.StdEncoding.DecodeString(*bin.Base64)
	if err != nil {
		return "", fmt.Errorf("echomq: decode dead-letter payload: %w", err)
	}
	return string(b), nil
}
