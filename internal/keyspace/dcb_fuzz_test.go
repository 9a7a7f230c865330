package keyspace_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/echomq/echomq/internal/keyspace"
)

// FuzzTags: a tag list that passes Tags is stored joined and reads back
// (ParseTags) as the canonical list, sorted, each tag once, each a valid
// tag; one that fails names a bad tag or too many.
func FuzzTags(f *testing.F) {
	for _, s := range []string{"game=G1", "game=G1\nplayer=P1", "b=2\na=1\nb=2", "x", "=v", "k=", "k=a,b", "k=a b", "k=ü", "k==", "a.b-c_d=::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tags := strings.Split(in, "\n")
		canon, joined, err := keyspace.Tags(tags)
		if err != nil {
			if _, ok := errors.AsType[*keyspace.TagError](err); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		if !slices.IsSorted(canon) || len(slices.Compact(slices.Clone(canon))) != len(canon) {
			t.Fatalf("not canonical: %q", canon)
		}
		for _, g := range tags {
			if !slices.Contains(canon, g) {
				t.Fatalf("lost %q", g)
			}
		}
		back := keyspace.ParseTags(joined)
		if len(canon) == 0 {
			back = []string{}
			canon = []string{}
		}
		if !slices.Equal(back, canon) {
			t.Fatalf("round trip %q -> %q -> %q", canon, joined, back)
		}
		for _, g := range back {
			if err := keyspace.Tag(g); err != nil {
				t.Fatalf("stored tag %q invalid: %v", g, err)
			}
		}
	})
}
