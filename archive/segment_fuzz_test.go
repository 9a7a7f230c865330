package archive

import (
	"errors"
	"testing"

	"github.com/echomq/echomq"
)

// FuzzSegmentDecode feeds arbitrary bytes to the guarded segment decoder
// with no checksum in front of it (the path of a segment a format 1
// manifest committed, or of hostile bytes a forged manifest vouches for):
// it never panics, and what it accepts decodes to rows inside the span the
// manifest entry states, ascending.
func FuzzSegmentDecode(f *testing.F) {
	seg, b := sweepSegment(f)
	small := newSegmentWriter("q", "s")
	id := echomq.MustID(echomq.BrandEvent, echomq.Snowflake(7<<22))
	if err := small.add(echomq.Event{ID: id, Entry: id.EntryID(), Fields: echomq.Fields{"a", "b"}}); err != nil {
		f.Fatal(err)
	}
	sb, err := small.finish(id, id)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte(nil), sb...))
	f.Add(b[len(b)-2048:]) // the footer of a multi-row-group segment
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range []Segment{
			{Name: seg.Name, First: seg.First, Last: seg.Last, Count: seg.Count, Bytes: int64(len(data))},
			{Name: "small", First: id, Last: id, Count: 1, Bytes: int64(len(data))},
		} {
			sf, err := checkSegment(s, data)
			if err == nil {
				err = verifyRows(sf, s)
			}
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("an error that is not ErrCorrupt: %v", err)
			}
		}
	})
}

// FuzzManifestSeal: any change to a sealed manifest is refused.
func FuzzManifestSeal(f *testing.F) {
	seg, _ := sweepSegment(f)
	name, mb := sweepManifest(seg)
	f.Add(0, byte(1))
	f.Add(len(mb)-3, byte(0x20))
	f.Fuzz(func(t *testing.T, off int, x byte) {
		if off < 0 || off >= len(mb) || x == 0 {
			return
		}
		v := append([]byte(nil), mb...)
		v[off] ^= x
		if _, err := decodeManifest(name, "q", "s", 1, v); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d ^ %#x accepted: %v", off, x, err)
		}
	})
}
