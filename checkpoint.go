package echomq

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/echomq/echomq/internal/keyspace"
)

// Checkpoint is the position of a merged read of several streams: per
// stream name, the entry id of the last entry handed out (or where the
// stream started). Following again from a checkpoint continues each stream
// right after its entry, so a restart repeats nothing that was checkpointed
// and skips nothing.
type Checkpoint map[string]EntryID

// String encodes the checkpoint as "name=ms-seq,name=ms-seq", sorted by name
// (names hold neither "=" nor ","); [ParseCheckpoint] reads it back.
func (cp Checkpoint) String() string {
	names := make([]string, 0, len(cp))
	for n := range cp {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(cp[n].String())
	}
	return b.String()
}

// ParseCheckpoint reads what [Checkpoint.String] writes; "" is the empty
// checkpoint. Errors: an [*ArgumentError] for a malformed pair or a name
// given twice, a [*NameError] for a bad stream name, an [*IDError] for a bad
// entry id.
func ParseCheckpoint(s string) (Checkpoint, error) {
	cp := Checkpoint{}
	if s == "" {
		return cp, nil
	}
	for pair := range strings.SplitSeq(s, ",") {
		name, id, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, &ArgumentError{Name: "checkpoint", Reason: fmt.Sprintf("%q is not name=entry-id", pair)}
		}
		if err := keyspace.Stream(name); err != nil {
			return nil, err
		}
		e, err := ParseEntryID(id)
		if err != nil {
			return nil, err
		}
		if _, dup := cp[name]; dup {
			return nil, &ArgumentError{Name: "checkpoint", Reason: fmt.Sprintf("stream %q given twice", name)}
		}
		cp[name] = e
	}
	return cp, nil
}

// Clone returns a copy.
func (cp Checkpoint) clone() Checkpoint {
	out := make(Checkpoint, len(cp))
	maps.Copy(out, cp)
	return out
}
