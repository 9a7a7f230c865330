package watermill_test

import (
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestFeaturesDocumented checks that docs/watermill.md declares exactly the
// features the suite runs with: every field of tests.Features, each with
// the value the test uses (the name of a function, "restart" for the
// restart command, nil for an unset one).
func TestFeaturesDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/watermill.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- features -->\n```go\ntests.Features\\{\n(.*?)\n\\}\n```\n<!-- /features -->").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/watermill.md has no features block")
	}
	documented := map[string]string{}
	var order []string
	for line := range strings.SplitSeq(string(m[1]), "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			t.Fatalf("bad features line %q", line)
		}
		documented[name] = strings.TrimSuffix(strings.TrimSpace(value), ",")
		order = append(order, name)
	}
	f := reflect.ValueOf(suiteFeatures())
	typ := f.Type()
	if len(order) != typ.NumField() {
		t.Errorf("the docs list %d fields, tests.Features has %d", len(order), typ.NumField())
	}
	for i := range typ.NumField() {
		name, v := typ.Field(i).Name, f.Field(i)
		want, ok := documented[name]
		if !ok {
			t.Errorf("field %s is not documented", name)
			continue
		}
		var got string
		switch v.Kind() {
		case reflect.Bool:
			got = map[bool]string{true: "true", false: "false"}[v.Bool()]
		case reflect.Slice:
			got = "nil"
			if v.Len() > 0 {
				got = "restart"
			}
		case reflect.Func:
			got = "nil"
			if !v.IsNil() {
				full := runtime.FuncForPC(v.Pointer()).Name()
				got = full[strings.LastIndex(full, ".")+1:]
			}
		default:
			t.Fatalf("field %s of kind %s", name, v.Kind())
		}
		if got != want {
			t.Errorf("%s: the test uses %s, the docs say %s", name, got, want)
		}
	}
}
