package echomq

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// fastStruct decodes the fields layout straight into a struct whose
// exported fields are all strings, booleans or numbers without custom
// unmarshalers, with the result encoding/json would give for the rebuilt
// document (names matched exactly, then case-insensitively; unknown names
// ignored; null leaving a field as it is; the same refusals of values that
// are not JSON of the field's kind), without building and parsing the
// document. Any other struct goes through encoding/json.
type fastStruct struct {
	byName map[string]fastField
	list   []fastField
}

type fastField struct {
	name  string
	index int
	kind  reflect.Kind
	bits  int
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// newFastStruct returns the fast decoder of t, or nil when t does not
// qualify.
func newFastStruct(t reflect.Type) *fastStruct {
	if t.Kind() != reflect.Struct || custom(t) {
		return nil
	}
	fs := &fastStruct{byName: map[string]fastField{}}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil // embedded fields follow rules of their own
		}
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if strings.Contains(","+opts+",", ",string,") || custom(sf.Type) {
			return nil
		}
		if name == "" {
			name = sf.Name
		}
		k := sf.Type.Kind()
		switch k {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
		default:
			return nil
		}
		if _, dup := fs.byName[name]; dup {
			return nil // encoding/json's rules for clashing names
		}
		ff := fastField{name: name, index: i, kind: k}
		if k != reflect.String && k != reflect.Bool {
			ff.bits = sf.Type.Bits()
		}
		fs.byName[name] = ff
		fs.list = append(fs.list, ff)
	}
	return fs
}

func custom(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || p.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) || p.Implements(textUnmarshaler)
}

func (fs *fastStruct) field(name string) (fastField, bool) {
	if ff, ok := fs.byName[name]; ok {
		return ff, true
	}
	for _, ff := range fs.list {
		if strings.EqualFold(ff.name, name) {
			return ff, true
		}
	}
	return fastField{}, false
}

// decode sets the fields of the struct v from f.
func (fs *fastStruct) decode(f Fields, v reflect.Value) error {
	for i := 0; i+1 < len(f); i += 2 {
		ff, ok := fs.field(f[i])
		if !ok {
			continue
		}
		s, fv := f[i+1], v.Field(ff.index)
		if ff.kind == reflect.String {
			fv.SetString(s)
			continue
		}
		if s == "null" {
			continue
		}
		if err := ff.set(fv, s); err != nil {
			return fmt.Errorf("field %q: %w", f[i], err)
		}
	}
	return nil
}

func (ff fastField) set(fv reflect.Value, s string) error {
	switch ff.kind {
	case reflect.Bool:
		switch s {
		case "true":
			fv.SetBool(true)
		case "false":
			fv.SetBool(false)
		default:
			return fmt.Errorf("%q is not a JSON boolean", s)
		}
	case reflect.Float32, reflect.Float64:
		if !jsonNumber(s) {
			return fmt.Errorf("%q is not a JSON number", s)
		}
		x, err := strconv.ParseFloat(s, ff.bits)
		if err != nil {
			return err
		}
		fv.SetFloat(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !jsonInteger(s) {
			return fmt.Errorf("%q is not a JSON integer", s)
		}
		x, err := strconv.ParseUint(s, 10, ff.bits)
		if err != nil {
			return err
		}
		fv.SetUint(x)
	default: // the signed integers
		if !jsonInteger(s) {
			return fmt.Errorf("%q is not a JSON integer", s)
		}
		x, err := strconv.ParseInt(s, 10, ff.bits)
		if err != nil {
			return err
		}
		fv.SetInt(x)
	}
	return nil
}

// jsonInteger reports whether s is a JSON number without fraction or
// exponent: -?(0|[1-9][0-9]*).
func jsonInteger(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// jsonNumber reports whether s is a JSON number.
func jsonNumber(s string) bool {
	if jsonInteger(s) {
		return true
	}
	return s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) && json.Valid([]byte(s))
}
