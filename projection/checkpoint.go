package projection

import (
	"bytes"
	"encoding/json"

	"github.com/echomq/echomq"
)

// Checkpoint is the position of a live projection: for each of its streams,
// in source order, the entry id of the last event folded into the state (the
// zero EntryID when none was yet). Everything at or below a stream's
// position is in the state exactly once; nothing above it is.
type Checkpoint []Position

// Position is one stream's entry of a [Checkpoint].
type Position struct {
	Stream string         // the source's Key
	Last   echomq.EntryID // the last entry folded; zero when none
}

// Get returns the position of the stream with key, and false when the
// checkpoint has no such stream.
func (c Checkpoint) Get(key string) (echomq.EntryID, bool) {
	for _, p := range c {
		if p.Stream == key {
			return p.Last, true
		}
	}
	return echomq.EntryID{}, false
}

// snapshotFormat is the version of the snapshot layout itself (not of the
// projection's definition, which is the header's Version).
const snapshotFormat = 1

// snapshotHeader is the first line of a snapshot: compact JSON, readable
// with redis-cli GET. The codec's bytes follow the newline, so state and
// checkpoint are one value written by one SET and can never disagree.
type snapshotHeader struct {
	Format     int                `json:"format"`
	Name       string             `json:"name"`
	Version    int                `json:"version"`
	Applied    int64              `json:"applied"`
	Checkpoint []snapshotPosition `json:"checkpoint"`
}

type snapshotPosition struct {
	Stream string `json:"stream"`
	Last   string `json:"last"`
}

// encodeSnapshot lays out header, newline, state.
func encodeSnapshot(name string, version int, applied int64, cp Checkpoint, state []byte) []byte {
	h := snapshotHeader{
		Format: snapshotFormat, Name: name, Version: version, Applied: applied,
		Checkpoint: make([]snapshotPosition, len(cp)),
	}
	for i, p := range cp {
		h.Checkpoint[i] = snapshotPosition{Stream: p.Stream, Last: p.Last.String()}
	}
	head, _ := json.Marshal(h) // strings and ints only: cannot fail
	out := make([]byte, 0, len(head)+1+len(state))
	out = append(out, head...)
	out = append(out, '\n')
	return append(out, state...)
}

// decodeSnapshot splits a snapshot into its header, checkpoint and state
// bytes, or returns a [*SnapshotError].
func decodeSnapshot(key string, b []byte) (snapshotHeader, Checkpoint, []byte, error) {
	before, after, ok := bytes.Cut(b, []byte{'\n'})
	if !ok {
		return snapshotHeader{}, nil, nil, &SnapshotError{Key: key, Reason: "no header line"}
	}
	var h snapshotHeader
	if err := json.Unmarshal(before, &h); err != nil {
		return snapshotHeader{}, nil, nil, &SnapshotError{Key: key, Reason: "header: " + err.Error()}
	}
	if h.Format != snapshotFormat {
		return snapshotHeader{}, nil, nil, &SnapshotError{Key: key, Reason: "unknown format " + itoa(h.Format)}
	}
	cp := make(Checkpoint, len(h.Checkpoint))
	for j, p := range h.Checkpoint {
		e, err := echomq.ParseEntryID(p.Last)
		if err != nil {
			return snapshotHeader{}, nil, nil, &SnapshotError{Key: key, Reason: "checkpoint of " + p.Stream + ": " + err.Error()}
		}
		cp[j] = Position{Stream: p.Stream, Last: e}
	}
	return h, cp, after, nil
}

// compatible reports whether a saved checkpoint belongs to the same streams,
// in the same order, as keys: a projection whose streams changed is rebuilt.
func compatible(cp Checkpoint, keys []string) bool {
	if len(cp) != len(keys) {
		return false
	}
	for i, p := range cp {
		if p.Stream != keys[i] {
			return false
		}
	}
	return true
}
