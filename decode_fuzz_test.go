package echomq

import (
	"strings"
	"testing"

	"github.com/echomq/echomq/internal/wire"
)

// FuzzDecodeEvent feeds arbitrary entry replies (entry id and flat fields,
// NUL-separated) to the reply decoder: it never panics, keeps every field
// but the recovered id, and recovers a well-formed id field.
func FuzzDecodeEvent(f *testing.F) {
	f.Add("1704117200000-1620567", "id\x00EVT000xY9Wvvcd\x00room\x00ROM1")
	f.Add("5-0", "room\x00ROM1\x00id\x00EVT000xY9Wvvcd")
	f.Add("5-0", "id\x00garbage")
	f.Add("x", "")
	f.Add("1704117200000-4190208", "id\x00EVT000xY9Wvvcd\x00@pos\x0042\x00@tags\x00game=G1,player=P1\x00room\x00ROM1")
	f.Add("5-0", "id\x00EVT000xY9Wvvcd\x00@pos\x00x\x00@tags\x00")
	f.Fuzz(func(t *testing.T, entry, flat string) {
		var fields []string
		if flat != "" {
			fields = strings.Split(flat, "\x00")
		}
		if len(fields)%2 != 0 {
			return // the wire decoder refuses odd replies before this point
		}
		ev, err := decodeEvent(wire.Entry{ID: entry, Fields: fields})
		if err != nil {
			return
		}
		tagged := len(fields) >= 6 && fields[2] == posField && fields[4] == tagsField
		if !ev.ID.IsZero() && tagged {
			// A tagged event: id, @pos and @tags become ID, Position, Tags.
			if len(ev.Fields) != len(fields)-6 || strings.Join(ev.Tags, ",") != fields[5] {
				t.Fatalf("tagged entry: kept %d of %d strings, tags %q of %q", len(ev.Fields), len(fields), ev.Tags, fields[5])
			}
			return
		}
		if !ev.ID.IsZero() {
			if len(ev.Fields) != len(fields)-2 {
				t.Fatalf("recovered id but kept %d of %d strings", len(ev.Fields), len(fields))
			}
			if _, ok := Fields(fields).Get(reservedField); !ok {
				t.Fatal("recovered an id without an id field")
			}
			return
		}
		if len(ev.Fields) != len(fields) {
			t.Fatalf("unrecovered entry lost fields")
		}
	})
}
