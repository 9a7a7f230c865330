package echomq

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Codec turns values of T into an event's payload and back: the seam of
// [Typed]. [JSONCodec] is built in; another encoding (protobuf, msgpack, …)
// is a type with these two methods in the program that needs it, so the
// library depends on none. A Codec must be safe for concurrent use.
//
// Encode must not produce the reserved field "id" (nor [VersionField] on a
// versioned view); Decode receives the payload after the upcasters ran, so
// it only ever sees the current version.
type Codec[T any] interface {
	Encode(v T) (Fields, error)
	Decode(f Fields) (T, error)
}

// jsonLayout is how a [JSONCodec] lays a value out over an event's fields.
type jsonLayout int

const (
	// layoutFields writes one stream field per top-level JSON property, in
	// the order encoding/json writes them (struct field order): a string
	// property is stored as its bare text (room=ROM1, not room="ROM1"),
	// any other value as its JSON text (points=480, tags=["a","b"]). The
	// entry then reads like one appended by hand, and untyped readers,
	// ready-made folds and the CLI see ordinary fields. The value must
	// encode as a JSON object (a struct or a map).
	layoutFields jsonLayout = iota
	// layoutPayload writes the whole JSON document into one field (named by
	// JSONCodec.Field, "payload" by default): any JSON value, nested as deep
	// as it likes, at the cost of opaque fields for untyped readers.
	layoutPayload
)

// defaultPayloadField is the field a payload layout codec writes.
const defaultPayloadField = "payload"

// JSONCodec is the [Codec] of encoding/json, in one of two layouts. The zero
// value is the fields layout. Make one with [JSONFields] or [JSONPayload].
//
// The fields layout writes one stream field per top-level JSON property, in
// struct field order: a string property as its bare text (room=ROM1), any
// other value as its JSON text (points=480, tags=["a","b"]), so untyped
// readers, folds and the CLI see ordinary fields; the value must encode as
// a JSON object. The payload layout writes the whole document into one
// field: any JSON value, at the cost of opaque fields for untyped readers.
type JSONCodec[T any] struct {
	// layout is the layout (zero: the fields layout).
	layout jsonLayout
	// Field names the one field of the payload layout. Defaults to "payload".
	Field string

	// quoted holds the JSON property names of T whose Go type is a string:
	// their stored bare text is quoted again on decode, even when it looks
	// like a number ("480" stays a string).
	quoted map[string]bool
	fast   *fastStruct // nil: through encoding/json
}

// JSONFields returns the JSON codec that writes one field per top-level
// property (fields layout).
func JSONFields[T any]() *JSONCodec[T] {
	t := reflect.TypeFor[T]()
	return &JSONCodec[T]{layout: layoutFields, quoted: stringProps(t), fast: newFastStruct(t)}
}

// JSONPayload returns the JSON codec that writes the document into the one
// field named field ("" means "payload").
func JSONPayload[T any](field string) *JSONCodec[T] {
	if field == "" {
		field = defaultPayloadField
	}
	return &JSONCodec[T]{layout: layoutPayload, Field: field}
}

func (c *JSONCodec[T]) field() string {
	if c.Field == "" {
		return defaultPayloadField
	}
	return c.Field
}

// Encode marshals v with encoding/json and lays it out. Errors: what
// json.Marshal returns; in the fields layout, a value that is not a JSON
// object.
func (c *JSONCodec[T]) Encode(v T) (Fields, error) {
	doc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if c.layout == layoutPayload {
		return Fields{c.field(), string(doc)}, nil
	}
	return splitObject(doc)
}

// Decode rebuilds the JSON document from f and unmarshals it into a T. In
// the fields layout every field becomes a property; in the payload layout
// the payload field must be present.
func (c *JSONCodec[T]) Decode(f Fields) (T, error) {
	var v T
	var doc []byte
	if c.layout == layoutPayload {
		s, ok := f.Get(c.field())
		if !ok {
			return v, fmt.Errorf("no %q field", c.field())
		}
		doc = []byte(s)
	} else {
		if c.fast != nil {
			err := c.fast.decode(f, reflect.ValueOf(&v).Elem())
			return v, err
		}
		quoted := c.quoted
		if quoted == nil {
			quoted = stringProps(reflect.TypeFor[T]())
		}
		doc = joinObject(f, quoted)
	}
	err := json.Unmarshal(doc, &v)
	return v, err
}

// stringProps returns the JSON property names of struct type t (or *t)
// whose Go type is a string kind, as encoding/json names them.
func stringProps(t reflect.Type) map[string]bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := map[string]bool{}
	if t.Kind() == reflect.Map && t.Elem().Kind() == reflect.String {
		out["*"] = true // every property of a map[string]string is a string
		return out
	}
	if t.Kind() != reflect.Struct {
		return out
	}
	for sf := range t.Fields() {
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		ft := sf.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if textLike(ft) || strings.Contains(","+opts+",", ",string,") {
			out[name] = true
		}
	}
	return out
}

// textLike reports whether encoding/json writes values of t as JSON
// strings: string kinds, []byte (base64) and text marshalers (time.Time,
// ids), whose bare text may look like a number and must be quoted again.
func textLike(t reflect.Type) bool {
	switch {
	case t.Kind() == reflect.String:
		return true
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return true
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		return !t.Implements(jsonMarshaler) && !reflect.PointerTo(t).Implements(jsonMarshaler) || t == timeType
	}
	return false
}

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	timeType      = reflect.TypeFor[time.Time]()
)

// errNotObject is the fields layout's refusal of a value that is not a
// JSON object.
var errNotObject = errors.New("the fields layout needs a value that encodes as a JSON object (use JSONPayload for others)")

// splitObject splits a compact JSON object (as json.Marshal writes it) into
// fields: string values unquoted, others as their JSON text.
func splitObject(doc []byte) (Fields, error) {
	if len(doc) < 2 || doc[0] != '{' || doc[len(doc)-1] != '}' {
		return nil, errNotObject
	}
	f := make(Fields, 0, 8)
	i := 1
	for i < len(doc)-1 {
		kEnd, err := stringEnd(doc, i)
		if err != nil {
			return nil, err
		}
		key, err := unquote(doc[i:kEnd])
		if err != nil {
			return nil, err
		}
		if kEnd >= len(doc) || doc[kEnd] != ':' {
			return nil, errors.New("json object: want ':' after a key")
		}
		vStart := kEnd + 1
		vEnd, err := valueEnd(doc, vStart)
		if err != nil {
			return nil, err
		}
		val := string(doc[vStart:vEnd])
		if doc[vStart] == '"' {
			if val, err = unquote(doc[vStart:vEnd]); err != nil {
				return nil, err
			}
		}
		f = append(f, key, val)
		i = vEnd
		if i < len(doc)-1 {
			if doc[i] != ',' {
				return nil, errors.New("json object: want ',' between members")
			}
			i++
		}
	}
	return f, nil
}

// unquote decodes a JSON string literal, fast when it has no escapes.
func unquote(lit []byte) (string, error) {
	if len(lit) >= 2 && !hasByte(lit[1:len(lit)-1], '\\') {
		return string(lit[1 : len(lit)-1]), nil
	}
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err
}

func hasByte(b []byte, c byte) bool {
	return slices.Contains(b, c)
}

// stringEnd returns the index after the JSON string starting at doc[i].
func stringEnd(doc []byte, i int) (int, error) {
	if i >= len(doc) || doc[i] != '"' {
		return 0, errors.New("json object: want a string")
	}
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errors.New("json object: unterminated string")
}

// valueEnd returns the index after the JSON value starting at doc[i] of a
// compact document (no insignificant whitespace, as json.Marshal writes).
func valueEnd(doc []byte, i int) (int, error) {
	if i >= len(doc) {
		return 0, errors.New("json object: want a value")
	}
	if doc[i] == '"' {
		return stringEnd(doc, i)
	}
	depth := 0
	for j := i; j < len(doc); j++ {
		switch doc[j] {
		case '"':
			end, err := stringEnd(doc, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j, nil // the end of the enclosing object
			}
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		case ',':
			if depth == 0 {
				return j, nil
			}
		}
	}
	return 0, errors.New("json object: unterminated value")
}

// joinObject rebuilds a JSON object from fields: a property named in quoted
// (or every property, when quoted has "*"), and any value that is not valid
// JSON, is written as a string; the rest as its JSON text.
func joinObject(f Fields, quoted map[string]bool) []byte {
	all := quoted["*"]
	b := make([]byte, 0, 16+8*len(f))
	b = append(b, '{')
	for i := 0; i+1 < len(f); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, f[i])
		b = append(b, ':')
		v := f[i+1]
		if all || isQuoted(quoted, f[i]) || !rawJSON(v) {
			b = appendQuoted(b, v)
		} else {
			b = append(b, v...)
		}
	}
	return append(b, '}')
}

// isQuoted looks a property up as encoding/json matches names to fields:
// exactly, else without regard to case.
func isQuoted(quoted map[string]bool, name string) bool {
	if quoted[name] {
		return true
	}
	for k := range quoted {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// rawJSON reports whether v can stand as a JSON value by itself. Strings are
// stored unquoted, so a value that starts with a quote was a string with a
// quote in it, and is quoted again.
func rawJSON(v string) bool {
	if v == "" || v[0] == '"' || jsonSpace(v[len(v)-1]) {
		return false // padded text was not written by encoding/json: a string
	}
	switch c := v[0]; {
	case c == '{' || c == '[' || c == '-' || (c >= '0' && c <= '9'), v == "true", v == "false", v == "null":
		return json.Valid([]byte(v))
	}
	return false
}

func jsonSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// appendQuoted appends s as a JSON string literal.
func appendQuoted(b []byte, s string) []byte {
	plain := true
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	enc, _ := json.Marshal(s) // a string always encodes (invalid UTF-8 becomes U+FFFD)
	return append(b, enc...)
}
