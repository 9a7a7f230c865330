package dcb_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
)

// FuzzQueryValidate: a query built from arbitrary text (items split by
// ';', types and tags by '|', names by ',') validates or is refused with
// an ArgumentError or a NameError, never anything else, and a valid one
// has items with at least one tag each.
func FuzzQueryValidate(f *testing.F) {
	for _, s := range []string{"a,b|game=G1", "|game=G1;x|player=P1,game=G1", "a|", "|", "a:b|k=v", "|k=a,b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var q dcb.Query
		for part := range strings.SplitSeq(in, ";") {
			types, tags, _ := strings.Cut(part, "|")
			var it dcb.Item
			if types != "" {
				it.Types = strings.Split(types, ",")
			}
			if tags != "" {
				it.Tags = strings.Split(tags, ",")
			}
			q = append(q, it)
		}
		err := q.Validate()
		if err == nil {
			for _, it := range q {
				if len(it.Tags) == 0 {
					t.Fatal("valid item without tags")
				}
			}
			return
		}
		if !errors.Is(err, echomq.ErrInvalidArgument) && !errors.Is(err, echomq.ErrInvalidName) {
			t.Fatalf("error %v", err)
		}
	})
}
