package archive

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/keyspace"
)

// The versions of the manifest layout. Format 2 carries a SHA-256 of
// every segment and of the manifest itself; format 1 (written before
// checksums existed) carries neither and is still read: its segments are
// checked by size and by the guarded decoder only (see docs/archive.md).
const (
	manifestFormatLegacy = 1
	manifestFormat       = 2
)

// Manifest is the committed state of one stream's archive: its segments in
// id order and the watermark W, the id of the newest archived entry. Every
// entry at or below W that the stream ever held is in exactly one segment;
// nothing above W is. A manifest is immutable: a cycle commits generation
// g+1 with an exclusive Put, so the manifest is the commit point and two
// archivers can never both commit on top of one generation.
type Manifest struct {
	Queue      string
	Stream     string
	Generation uint64 // 0 for a stream with no manifest yet
	// Watermark is W; the zero ID when nothing is archived.
	Watermark   echomq.ID
	Segments    []Segment
	Entries     int64 // the sum of the segments' counts
	Bytes       int64 // the sum of the segments' sizes
	CommittedAt time.Time
}

// Segment describes one Parquet file of a manifest.
type Segment struct {
	Name        string    // the object name
	First, Last echomq.ID // the ids of its first and last entries
	Count       int64     // entries
	Bytes       int64     // object size
	CreatedAt   time.Time // when the archiver wrote it
	// SHA256 is the lowercase hex SHA-256 of the object's bytes, checked
	// before a read decodes them; empty for a segment committed by a
	// format 1 manifest (no checksum is known).
	SHA256 string
}

// FirstEntry returns the entry id of the segment's first entry.
func (s Segment) FirstEntry() echomq.EntryID { return s.First.EntryID() }

// LastEntry returns the entry id of the segment's last entry.
func (s Segment) LastEntry() echomq.EntryID { return s.Last.EntryID() }

// HasWatermark reports whether anything is archived.
func (m *Manifest) HasWatermark() bool { return !m.Watermark.IsZero() }

// Overlapping returns the segments holding entries of r, in id order: a
// binary search on the id index (time windows are id ranges), so a read
// touches only those.
func (m *Manifest) Overlapping(r echomq.Range) []Segment {
	segs := m.Segments
	lo := 0
	if e, excl := r.From.EntryID(); !r.From.IsUnbounded() {
		lo = sort.Search(len(segs), func(i int) bool {
			c := segs[i].LastEntry().Compare(e)
			return c > 0 || c == 0 && !excl
		})
	}
	hi := len(segs)
	if e, excl := r.To.EntryID(); !r.To.IsUnbounded() {
		hi = sort.Search(len(segs), func(i int) bool {
			c := segs[i].FirstEntry().Compare(e)
			return c > 0 || c == 0 && excl
		})
	}
	if lo >= hi {
		return nil
	}
	return segs[lo:hi]
}

// next returns the manifest that adds segs on top of m.
func (m *Manifest) next(segs []Segment, now time.Time) *Manifest {
	n := &Manifest{
		Queue: m.Queue, Stream: m.Stream, Generation: m.Generation + 1,
		Watermark: m.Watermark, Entries: m.Entries, Bytes: m.Bytes, CommittedAt: now.UTC(),
	}
	n.Segments = append(append(make([]Segment, 0, len(m.Segments)+len(segs)), m.Segments...), segs...)
	for _, s := range segs {
		n.Entries += s.Count
		n.Bytes += s.Bytes
		n.Watermark = s.Last
	}
	return n
}

// The JSON shape of a manifest (snake_case, ids as strings).
type manifestJSON struct {
	Format      int           `json:"format"`
	Queue       string        `json:"queue"`
	Stream      string        `json:"stream"`
	Generation  uint64        `json:"generation"`
	Watermark   string        `json:"watermark"`
	WatermarkMs int64         `json:"watermark_ms,omitempty"`
	Entries     int64         `json:"entries"`
	Bytes       int64         `json:"bytes"`
	CommittedAt time.Time     `json:"committed_at"`
	Segments    []segmentJSON `json:"segments"`
	// Checksum is "sha256:<hex>" of the file's bytes with this value's hex
	// digits replaced by zeros (format 2); the last member, so the file
	// stays plain JSON any tool reads.
	Checksum string `json:"checksum,omitempty"`
}

type segmentJSON struct {
	Name      string    `json:"name"`
	First     string    `json:"first"`
	Last      string    `json:"last"`
	FirstMs   int64     `json:"first_ms"`
	LastMs    int64     `json:"last_ms"`
	Count     int64     `json:"count"`
	Bytes     int64     `json:"bytes"`
	CreatedAt time.Time `json:"created_at"`
	SHA256    string    `json:"sha256,omitempty"`
}

// encode renders the manifest as indented JSON.
func (m *Manifest) encode() []byte {
	j := manifestJSON{
		Format: manifestFormat, Queue: m.Queue, Stream: m.Stream, Generation: m.Generation,
		Entries: m.Entries, Bytes: m.Bytes, CommittedAt: m.CommittedAt, Segments: make([]segmentJSON, len(m.Segments)),
	}
	if m.HasWatermark() {
		j.Watermark = m.Watermark.String()
		j.WatermarkMs = int64(m.Watermark.EntryID().Ms)
	}
	for i, s := range m.Segments {
		j.Segments[i] = segmentJSON{
			Name: s.Name, First: s.First.String(), Last: s.Last.String(),
			FirstMs: int64(s.FirstEntry().Ms), LastMs: int64(s.LastEntry().Ms), Count: s.Count, Bytes: s.Bytes, CreatedAt: s.CreatedAt, SHA256: s.SHA256,
		}
	}
	j.Checksum = checksumPlaceholder
	b, _ := json.MarshalIndent(j, "", "  ") // strings, ints and times only: cannot fail
	return sealManifest(append(b, '\n'))
}

// CorruptError says why a manifest or segment cannot be used; it matches
// [ErrCorrupt].
type CorruptError struct {
	Name   string
	Reason string
}

func (e *CorruptError) Error() string { return "archive: corrupt " + e.Name + ": " + e.Reason }

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// decodeManifest parses and checks a manifest stored under name for the
// stream q/s at generation gen. Every invariant a reader or a cycle relies
// on is checked, so a damaged manifest is refused rather than half-used.
func decodeManifest(name, q, s string, gen uint64, b []byte) (*Manifest, error) {
	bad := func(format string, args ...any) (*Manifest, error) {
		return nil, &CorruptError{Name: name, Reason: fmt.Sprintf(format, args...)}
	}
	var j manifestJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return bad("%v", err)
	}
	switch j.Format {
	case manifestFormat:
		if err := checkManifestSeal(b, j.Checksum); err != nil {
			return bad("%v", err)
		}
	case manifestFormatLegacy:
		if j.Checksum != "" {
			return bad("a format 1 manifest with a checksum")
		}
	default:
		return bad("unknown format %d", j.Format)
	}
	if j.Queue != q || j.Stream != s || j.Generation != gen {
		return bad("names %s/%s generation %d, stored as %s/%s generation %d", j.Queue, j.Stream, j.Generation, q, s, gen)
	}
	if keyspace.Queue(q) != nil || keyspace.Stream(s) != nil {
		return bad("bad stream name %s/%s", q, s)
	}
	m := &Manifest{
		Queue: q, Stream: s, Generation: gen, Entries: j.Entries, Bytes: j.Bytes, CommittedAt: j.CommittedAt,
		Segments: make([]Segment, len(j.Segments)),
	}
	var entries, size int64
	for i, sj := range j.Segments {
		first, err1 := echomq.ParseEventID(sj.First)
		last, err2 := echomq.ParseEventID(sj.Last)
		if err1 != nil || err2 != nil {
			return bad("segment %d: bad ids %q..%q", i, sj.First, sj.Last)
		}
		if first.Compare(last) > 0 || sj.Count < 1 || sj.Bytes < 12 {
			return bad("segment %d: first above last, a count below 1 or a size below 12 bytes", i)
		}
		if i > 0 && m.Segments[i-1].Last.Compare(first) >= 0 {
			return bad("segment %d overlaps or precedes segment %d", i, i-1)
		}
		if sj.Name != segmentName(q, s, first, last) {
			return bad("segment %d: name %q does not match its range", i, sj.Name)
		}
		if sj.SHA256 != "" && !isSHA256Hex(sj.SHA256) {
			return bad("segment %d: sha256 %q is not 64 lowercase hex digits", i, truncate(sj.SHA256))
		}
		if j.Format == manifestFormatLegacy && sj.SHA256 != "" {
			return bad("segment %d: a checksum in a format 1 manifest", i)
		}
		m.Segments[i] = Segment{Name: sj.Name, First: first, Last: last, Count: sj.Count, Bytes: sj.Bytes, CreatedAt: sj.CreatedAt, SHA256: sj.SHA256}
		entries += sj.Count
		size += sj.Bytes
	}
	if entries != j.Entries || size != j.Bytes {
		return bad("totals %d entries, %d bytes; the segments add up to %d, %d", j.Entries, j.Bytes, entries, size)
	}
	switch {
	case len(m.Segments) == 0 && j.Watermark != "":
		return bad("a watermark without segments")
	case len(m.Segments) > 0:
		w, err := echomq.ParseEventID(j.Watermark)
		if err != nil || w != m.Segments[len(m.Segments)-1].Last {
			return bad("watermark %q is not the last segment's last id", j.Watermark)
		}
		m.Watermark = w
	}
	return m, nil
}
