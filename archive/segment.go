package archive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/echomq/echomq"
)

// segmentRow is one archived entry, one row of a segment. The columns are
// the entry's EVT id (empty for an entry another program wrote without
// one), its entry id as Unix milliseconds and sequence, and its payload as
// a list of name/value pairs in stored order (binary: values are
// binary-safe). Any Parquet reader sees
//
//	id: string, ms: int64, seq: int64,
//	fields: list<element: struct<name: binary, value: binary>>
type segmentRow struct {
	ID     string         `parquet:"id,zstd"`
	Ms     int64          `parquet:"ms,delta,zstd"`
	Seq    int64          `parquet:"seq,delta,zstd"`
	Fields []segmentField `parquet:"fields,list"`
}

type segmentField struct {
	Name  string `parquet:"name,bytes,dict,zstd"`
	Value string `parquet:"value,bytes,zstd"`
}

// rowGroupRows is how many rows one row group holds: the unit a read
// decodes, so a read of a few entries decodes at most this many.
const rowGroupRows = 8192

// Metadata keys of a segment's footer: the segment describes itself, so a
// file copied out of the store still says what it holds.
const (
	metaFormat    = "echomq.format"
	metaQueue     = "echomq.queue"
	metaStream    = "echomq.stream"
	metaFirst     = "echomq.first"
	metaLast      = "echomq.last"
	metaCount     = "echomq.count"
	metaRowGroups = "echomq.row_groups" // JSON [[first entry, last entry], …]
)

// segmentWriter encodes one segment in memory.
type segmentWriter struct {
	buf     bytes.Buffer
	w       *parquet.GenericWriter[segmentRow]
	batch   []segmentRow
	groups  [][2]string
	inGroup int
	count   int64
	first   echomq.EntryID
	last    echomq.EntryID
}

func newSegmentWriter(q, name string) *segmentWriter {
	sw := &segmentWriter{batch: make([]segmentRow, 0, 256)}
	sw.w = parquet.NewGenericWriter[segmentRow](&sw.buf,
		parquet.DataPageVersion(1), // the most widely read page layout
		parquet.CreatedBy("echomq", "1", ""),
		parquet.KeyValueMetadata(metaFormat, "1"),
		parquet.KeyValueMetadata(metaQueue, q),
		parquet.KeyValueMetadata(metaStream, name),
	)
	return sw
}

// add appends one event; events come in ascending entry id order.
func (sw *segmentWriter) add(ev echomq.Event) error {
	row := segmentRow{Ms: int64(ev.Entry.Ms), Seq: int64(ev.Entry.Seq), Fields: make([]segmentField, len(ev.Fields)/2)}
	if !ev.ID.IsZero() {
		row.ID = ev.ID.String()
	}
	for i := range row.Fields {
		row.Fields[i] = segmentField{Name: ev.Fields[2*i], Value: ev.Fields[2*i+1]}
	}
	if sw.inGroup == 0 {
		sw.groups = append(sw.groups, [2]string{ev.Entry.String(), ""})
	}
	sw.groups[len(sw.groups)-1][1] = ev.Entry.String()
	if sw.count == 0 {
		sw.first = ev.Entry
	}
	sw.last = ev.Entry
	sw.count++
	sw.inGroup++
	sw.batch = append(sw.batch, row)
	if len(sw.batch) == cap(sw.batch) || sw.inGroup == rowGroupRows {
		if err := sw.flushBatch(); err != nil {
			return err
		}
	}
	if sw.inGroup == rowGroupRows {
		sw.inGroup = 0
		return sw.w.Flush() // end the row group where the index says it ends
	}
	return nil
}

func (sw *segmentWriter) flushBatch() error {
	if len(sw.batch) == 0 {
		return nil
	}
	_, err := sw.w.Write(sw.batch)
	clear(sw.batch)
	sw.batch = sw.batch[:0]
	return err
}

// finish closes the file and returns its bytes.
func (sw *segmentWriter) finish(first, last echomq.ID) ([]byte, error) {
	if err := sw.flushBatch(); err != nil {
		return nil, err
	}
	groups, _ := json.Marshal(sw.groups) // strings only: cannot fail
	sw.w.SetKeyValueMetadata(metaFirst, first.String())
	sw.w.SetKeyValueMetadata(metaLast, last.String())
	sw.w.SetKeyValueMetadata(metaCount, strconv.FormatInt(sw.count, 10))
	sw.w.SetKeyValueMetadata(metaRowGroups, string(groups))
	if err := sw.w.Close(); err != nil {
		return nil, err
	}
	return sw.buf.Bytes(), nil
}

// segmentFile is a decoded segment footer.
type segmentFile struct {
	name   string
	file   *parquet.File
	groups [][2]echomq.EntryID
	rows   []segmentRow // reused by each row group's decode
}

// openSegment parses a segment's footer and row group index. The decoder
// is guarded: a panic inside it becomes a [*CorruptError] (a checksum-valid
// file can still be hostile when its manifest was forged), the footer is
// framed and bounded before it is parsed, and a row group larger than the
// writer ever makes is refused before it is decoded.
func openSegment(name string, b []byte) (sf *segmentFile, err error) {
	defer guard(name, &err)
	if err := checkFooter(b); err != nil {
		return nil, &CorruptError{Name: name, Reason: err.Error()}
	}
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)),
		parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &CorruptError{Name: name, Reason: err.Error()}
	}
	raw, _ := f.Lookup(metaRowGroups)
	var groups [][2]string
	if err := json.Unmarshal([]byte(raw), &groups); err != nil || len(groups) != len(f.RowGroups()) {
		return nil, &CorruptError{Name: name, Reason: "missing or bad row group index"}
	}
	for i, rg := range f.RowGroups() {
		if n := rg.NumRows(); n < 1 || n > rowGroupRows {
			return nil, &CorruptError{Name: name, Reason: fmt.Sprintf("row group %d claims %d rows (1..%d)", i, n, rowGroupRows)}
		}
		for _, cc := range f.Metadata().RowGroups[i].Columns {
			if cc.MetaData.TotalCompressedSize < 0 || cc.MetaData.TotalCompressedSize > int64(len(b)) ||
				cc.MetaData.TotalUncompressedSize < 0 || cc.MetaData.TotalUncompressedSize > maxGroupBytes {
				return nil, &CorruptError{Name: name, Reason: fmt.Sprintf("row group %d: a column chunk claims %d bytes (%d uncompressed)", i, cc.MetaData.TotalCompressedSize, cc.MetaData.TotalUncompressedSize)}
			}
		}
	}
	sf = &segmentFile{name: name, file: f, groups: make([][2]echomq.EntryID, len(groups))}
	for i, g := range groups {
		a, err1 := echomq.ParseEntryID(g[0])
		b, err2 := echomq.ParseEntryID(g[1])
		if err1 != nil || err2 != nil {
			return nil, &CorruptError{Name: name, Reason: "bad row group index entry " + strconv.Itoa(i)}
		}
		sf.groups[i] = [2]echomq.EntryID{a, b}
	}
	return sf, nil
}

// maxGroupBytes bounds one column chunk's decoded size. A row group holds
// at most rowGroupRows entries and an engine value at most 512 MiB, but the
// writer's chunks are far below this; a claim above it is refused rather
// than allocated.
const maxGroupBytes = 4 << 30

// guard turns a panic of the Parquet decoder into a [*CorruptError].
func guard(name string, err *error) {
	if p := recover(); p != nil {
		*err = &CorruptError{Name: name, Reason: fmt.Sprintf("undecodable (decoder panic: %v)", p)}
	}
}

// scan yields the segment's events in r, ascending or descending, decoding
// only the row groups that overlap r. It stops early when yield returns
// false and returns an error matching [ErrCorrupt] for an undecodable row.
func (sf *segmentFile) scan(r echomq.Range, reverse bool, yield func(echomq.Event) bool) (bool, error) {
	groups := sf.file.RowGroups()
	n := len(groups)
	for k := range n {
		i := k
		if reverse {
			i = n - 1 - k
		}
		if !overlaps(r, sf.groups[i][0], sf.groups[i][1]) {
			continue
		}
		evs, err := sf.decodeGroup(i, groups[i])
		if err != nil {
			return false, err
		}
		for j := range evs {
			ev := evs[j]
			if reverse {
				ev = evs[len(evs)-1-j]
			}
			if r.Contains(ev.Entry) && !yield(ev) {
				return false, nil
			}
		}
	}
	return true, nil
}

// overlaps reports whether [first, last] meets r.
func overlaps(r echomq.Range, first, last echomq.EntryID) bool {
	return !belowLower(last, r.From) && !aboveUpper(first, r.To)
}

// belowLower reports whether e lies below the lower bound b.
func belowLower(e echomq.EntryID, b echomq.Bound) bool {
	if b.IsUnbounded() {
		return false
	}
	be, excl := b.EntryID()
	c := e.Compare(be)
	return c < 0 || c == 0 && excl
}

// aboveUpper reports whether e lies above the upper bound b.
func aboveUpper(e echomq.EntryID, b echomq.Bound) bool {
	if b.IsUnbounded() {
		return false
	}
	be, excl := b.EntryID()
	c := e.Compare(be)
	return c > 0 || c == 0 && excl
}

// decodeGroup decodes row group i (rg); every row must lie in the group's
// indexed span, ascending.
func (sf *segmentFile) decodeGroup(gi int, rg parquet.RowGroup) (evs []echomq.Event, err error) {
	defer guard(sf.name, &err)
	rd := parquet.NewGenericRowGroupReader[segmentRow](rg)
	defer rd.Close()
	if n := int(rg.NumRows()); cap(sf.rows) < n {
		sf.rows = make([]segmentRow, n)
	}
	rows := sf.rows[:rg.NumRows()]
	read := 0
	for read < len(rows) {
		n, err := rd.Read(rows[read:])
		read += n
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &CorruptError{Name: sf.name, Reason: err.Error()}
		}
		if n == 0 {
			break
		}
	}
	if read != len(rows) {
		return nil, &CorruptError{Name: sf.name, Reason: fmt.Sprintf("a row group of %d rows decoded %d", len(rows), read)}
	}
	evs = make([]echomq.Event, read)
	var prev echomq.EntryID
	span := sf.groups[gi]
	for i := range evs {
		row := &rows[i]
		e := echomq.EntryID{Ms: uint64(row.Ms), Seq: uint64(row.Seq)}
		if row.Ms < 0 || row.Seq < 0 || i > 0 && prev.Compare(e) >= 0 || e.Compare(span[0]) < 0 || e.Compare(span[1]) > 0 {
			return nil, &CorruptError{Name: sf.name, Reason: fmt.Sprintf("row group %d row %d: entry %d-%d out of order or outside %s..%s", gi, i, row.Ms, row.Seq, span[0], span[1])}
		}
		prev = e
		ev := echomq.Event{Entry: echomq.EntryID{Ms: uint64(row.Ms), Seq: uint64(row.Seq)}, Fields: make(echomq.Fields, 0, 2*len(row.Fields))}
		if row.ID != "" {
			id, err := echomq.ParseEventID(row.ID)
			if err != nil {
				return nil, &CorruptError{Name: sf.name, Reason: fmt.Sprintf("row %d: %v", i, err)}
			}
			ev.ID = id
		}
		for _, f := range row.Fields {
			ev.Fields = append(ev.Fields, f.Name, f.Value)
		}
		evs[i] = ev
	}
	return evs, nil
}
