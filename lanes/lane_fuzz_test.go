package lanes_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/lanes"
)

// FuzzLaneKey: a lane the grammar admits is valid UTF-8 without control
// bytes, and its key stays on the queue's slot under the lane prefix, so no
// lane can move a key to another slot or reach into another key.
func FuzzLaneKey(f *testing.F) {
	for _, s := range []string{"PLR0KHTOWnGLuC", "a}b{c", "}", "{", ":job:JOB0000000000001", "x\x00", "é", "\xff"} {
		f.Add(s)
	}
	const q = "cm"
	slot := keyspace.Slot(keyspace.LaneRingKey(q))
	f.Fuzz(func(t *testing.T, lane string) {
		if lanes.ValidateLane(lane) != nil {
			return
		}
		if !utf8.ValidString(lane) || len(lane) == 0 || len(lane) > keyspace.MaxLaneLen {
			t.Fatalf("admitted %q", lane)
		}
		for _, r := range lane {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("admitted control %U in %q", r, lane)
			}
		}
		key := keyspace.LaneKey(q, lane)
		if keyspace.Slot(key) != slot {
			t.Fatalf("lane %q moved its key to slot %d", lane, keyspace.Slot(key))
		}
		if !strings.HasPrefix(key, keyspace.LanePrefix(q)) || key[len(keyspace.LanePrefix(q)):] != lane {
			t.Fatalf("lane key %q does not end in the lane", key)
		}
	})
}
