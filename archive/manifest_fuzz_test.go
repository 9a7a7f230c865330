package archive

import (
	"testing"
	"time"

	"github.com/echomq/echomq"
)

// FuzzDecodeManifest: the manifest decoder never panics, and whatever it
// accepts satisfies the invariants reads rely on and re-encodes to a
// manifest it accepts again.
func FuzzDecodeManifest(f *testing.F) {
	a := echomq.MustID(echomq.BrandEvent, echomq.Snowflake(1<<22))
	b := echomq.MustID(echomq.BrandEvent, echomq.Snowflake(5<<22))
	c := echomq.MustID(echomq.BrandEvent, echomq.Snowflake(9<<22))
	m := (&Manifest{Queue: "q", Stream: "s"}).next([]Segment{
		{Name: segmentName("q", "s", a, b), First: a, Last: b, Count: 3, Bytes: 100},
		{Name: segmentName("q", "s", c, c), First: c, Last: c, Count: 1, Bytes: 40},
	}, time.Unix(0, 0))
	f.Add(m.encode())
	f.Add((&Manifest{Queue: "q", Stream: "s", Generation: 1}).encode())
	f.Add([]byte(`{"format":1,"queue":"q","stream":"s","generation":1,"watermark":"EVT00000000001"}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeManifest("fuzz", "q", "s", 1, data)
		if err != nil {
			return
		}
		var total int64
		for i, s := range got.Segments {
			if s.First.Compare(s.Last) > 0 || i > 0 && got.Segments[i-1].Last.Compare(s.First) >= 0 {
				t.Fatalf("accepted unordered segments: %+v", got.Segments)
			}
			total += s.Count
		}
		if total != got.Entries {
			t.Fatalf("accepted totals that do not add up")
		}
		if len(got.Segments) > 0 && got.Watermark != got.Segments[len(got.Segments)-1].Last {
			t.Fatalf("accepted a watermark off the last segment")
		}
		if _, err := decodeManifest("fuzz", "q", "s", 1, got.encode()); err != nil {
			t.Fatalf("re-encoded manifest refused: %v", err)
		}
	})
}

func TestManifestOverlapping(t *testing.T) {
	t.Parallel()
	id := func(ms int64) echomq.ID { return echomq.MustID(echomq.BrandEvent, echomq.Snowflake(ms<<22)) }
	segs := []Segment{{First: id(1), Last: id(3)}, {First: id(5), Last: id(7)}, {First: id(9), Last: id(9)}}
	m := &Manifest{Segments: segs}
	for _, tc := range []struct {
		name string
		r    echomq.Range
		want int // index of the first segment, -1 for none
		n    int
	}{
		{"all", echomq.All, 0, 3},
		{"inside one", echomq.Between(id(6), id(6)), 1, 1},
		{"gap", echomq.Span(echomq.After(id(3)), echomq.Exclusive(id(5).EntryID())), -1, 0},
		{"edges inclusive", echomq.Between(id(3), id(5)), 0, 2},
		{"edges exclusive", echomq.Span(echomq.After(id(3)), echomq.After(id(8))), 1, 1},
		{"above", echomq.Span(echomq.After(id(9)), echomq.Unbounded), -1, 0},
		{"below", echomq.Span(echomq.Unbounded, echomq.Exclusive(id(1).EntryID())), -1, 0},
	} {
		got := m.Overlapping(tc.r)
		if len(got) != tc.n || tc.n > 0 && got[0] != segs[tc.want] {
			t.Errorf("%s: got %d segments %+v", tc.name, len(got), got)
		}
	}
}
