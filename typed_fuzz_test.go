package echomq

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

type fuzzRoom struct {
	Room   string  `json:"room"`
	Seats  int8    `json:"seats"`
	Score  uint16  `json:"score"`
	Ratio  float64 `json:"ratio"`
	Blind  bool    `json:"blind"`
	Plain  string
	hidden string //nolint:unused // unexported fields are never decoded
}

// FuzzJSONFieldsFastDecode: for any fields, the fast struct decoder agrees
// with encoding/json on the rebuilt document: the same value, and an error
// exactly when encoding/json refuses it. (Strings holding invalid UTF-8 are
// left out: encoding/json replaces their bytes, the fast path keeps them.)
func FuzzJSONFieldsFastDecode(f *testing.F) {
	f.Add("room\x00ROM1\x00seats\x004\x00score\x0065535\x00ratio\x001.5e3\x00blind\x00true")
	f.Add("seats\x00128\x00ROOM\x00x\x00plain\x00null")
	f.Add("seats\x00-0\x00score\x00-1\x00ratio\x00NaN\x00blind\x00TRUE")
	f.Add("seats\x0001\x00ratio\x00+1\x00seats\x00null\x00room\x00\"q\"")
	f.Fuzz(func(t *testing.T, flat string) {
		fields := Fields(strings.Split(flat, "\x00"))
		if len(fields)%2 != 0 {
			return
		}
		for _, s := range fields {
			if !utf8.ValidString(s) {
				return
			}
		}
		c := JSONFields[fuzzRoom]()
		if c.fast == nil {
			t.Fatal("fuzzRoom qualifies for the fast path")
		}
		var fast fuzzRoom
		ferr := c.fast.decode(fields, reflect.ValueOf(&fast).Elem())
		var slow fuzzRoom
		serr := json.Unmarshal(joinObject(fields, c.quoted), &slow)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("fast error %v, encoding/json error %v for %q", ferr, serr, fields)
		}
		if ferr == nil && fast != slow {
			t.Fatalf("fast %+v, encoding/json %+v for %q", fast, slow, fields)
		}
	})
}

type fuzzDoc struct {
	A string            `json:"a"`
	B int               `json:"b"`
	C []string          `json:"c"`
	D map[string]string `json:"d"`
	E *string           `json:"e"`
}

// FuzzJSONFieldsRoundTrip: any value survives Encode then Decode in the
// fields layout (through encoding/json for a struct the fast path does not
// take), and splitObject takes any object encoding/json writes. (An
// interface-typed property is left out: a string in it that reads as JSON,
// such as "null" or "42", comes back as that value; see layoutFields.)
func FuzzJSONFieldsRoundTrip(f *testing.F) {
	f.Add("ROM1", 4, "x", "k", "v", "007")
	f.Add(`a "b" \ c`, -1, "", "", "", "true")
	f.Add("<>&\u2028", 0, "[1]", "{", "}", "null")
	f.Fuzz(func(t *testing.T, a string, b int, c0, k, v, e string) {
		in := fuzzDoc{A: a, B: b, C: []string{c0}, D: map[string]string{k: v}, E: &e}
		for _, s := range []string{a, c0, k, v, e} {
			if !utf8.ValidString(s) {
				return
			}
		}
		c := JSONFields[fuzzDoc]()
		fields, err := c.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Decode(fields)
		if err != nil {
			t.Fatalf("decode %q: %v", fields, err)
		}
		want, _ := json.Marshal(in)
		got, _ := json.Marshal(out)
		if string(want) != string(got) {
			t.Fatalf("round trip: %s became %s (fields %q)", want, got, fields)
		}
	})
}

// FuzzParseCheckpoint: ParseCheckpoint never panics, and what it accepts
// prints back to a string it parses to the same checkpoint.
func FuzzParseCheckpoint(f *testing.F) {
	f.Add("a=1-2,b=3-4")
	f.Add("")
	f.Add("a=1-2,a=3-4")
	f.Add("a:b=1-2")
	f.Fuzz(func(t *testing.T, s string) {
		cp, err := ParseCheckpoint(s)
		if err != nil {
			return
		}
		back, err := ParseCheckpoint(cp.String())
		if err != nil || !reflect.DeepEqual(cp, back) {
			t.Fatalf("%q → %q → %v, %v", s, cp.String(), back, err)
		}
	})
}
