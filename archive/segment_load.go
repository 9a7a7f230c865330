package archive

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxManifestBytes is the largest manifest a read accepts: a manifest is a
// few hundred bytes per segment, so 64 MiB is hundreds of thousands of
// segments. A larger object is refused as corrupt before it is read whole.
const MaxManifestBytes = 64 << 20

// maxFooterBytes bounds a segment's Parquet footer (its metadata): ours are
// a few KiB; a footer that claims more is refused before the decoder
// allocates for it.
const maxFooterBytes = 16 << 20

// LimitGetter is the optional capability of a [Store] to read at most a
// number of bytes of an object. GetLimit returns the object's bytes when it
// holds at most max bytes and otherwise returns max+1 bytes of it (the
// caller sees it is too large without reading it whole); a missing object
// is an error matching [ErrNotFound]. The archive reads segments with it so
// an object larger than its manifest says is never read into memory; a
// store without it is read with Get and checked after.
type LimitGetter interface {
	GetLimit(ctx context.Context, name string, limit int64) ([]byte, error)
}

// getLimited reads name from store, at most limit+1 bytes when the store can
// bound the read.
func getLimited(ctx context.Context, store Store, name string, limit int64) ([]byte, error) {
	if lg, ok := store.(LimitGetter); ok {
		return lg.GetLimit(ctx, name, limit)
	}
	return store.Get(ctx, name)
}

// LimitReadAll reads r to its end but at most limit+1 bytes: a helper for
// [LimitGetter] implementations.
func LimitReadAll(r io.Reader, limit int64) ([]byte, error) {
	limit = max(limit, 0)
	return io.ReadAll(io.LimitReader(r, limit+1))
}

// loadSegment fetches seg from store and checks it against the manifest
// before the Parquet decoder sees a byte: its size, then its SHA-256.
func loadSegment(ctx context.Context, store Store, seg Segment) (*segmentFile, error) {
	b, err := getLimited(ctx, store, seg.Name, seg.Bytes)
	if errors.Is(err, ErrNotFound) {
		return nil, &CorruptError{Name: seg.Name, Reason: "the manifest names a segment the store does not hold"}
	}
	if err != nil {
		return nil, &StoreError{Op: "get", Name: seg.Name, Err: err}
	}
	return checkSegment(seg, b)
}

// checkSegment verifies b as the bytes of seg and opens it.
func checkSegment(seg Segment, b []byte) (*segmentFile, error) {
	switch n := int64(len(b)); {
	case n < seg.Bytes:
		return nil, &CorruptError{Name: seg.Name, Reason: fmt.Sprintf("truncated: %d bytes, the manifest says %d", n, seg.Bytes)}
	case n > seg.Bytes:
		return nil, &CorruptError{Name: seg.Name, Reason: fmt.Sprintf("larger than the manifest's %d bytes", seg.Bytes)}
	}
	if seg.SHA256 != "" {
		if got := segmentSum(b); got != seg.SHA256 {
			return nil, &CorruptError{Name: seg.Name, Reason: fmt.Sprintf("checksum mismatch: sha256 %s, the manifest says %s", got, seg.SHA256)}
		}
	}
	sf, err := openSegment(seg.Name, b)
	if err != nil {
		return nil, err
	}
	if got := sf.file.NumRows(); got != seg.Count {
		return nil, &CorruptError{Name: seg.Name, Reason: fmt.Sprintf("holds %d rows, the manifest says %d", got, seg.Count)}
	}
	lo, hi := seg.FirstEntry(), seg.LastEntry()
	for i, g := range sf.groups {
		if g[0].Compare(lo) < 0 || g[1].Compare(hi) > 0 || g[0].Compare(g[1]) > 0 ||
			i > 0 && sf.groups[i-1][1].Compare(g[0]) >= 0 {
			return nil, &CorruptError{Name: seg.Name, Reason: fmt.Sprintf("row group %d spans %s..%s, outside or out of order within %s..%s", i, g[0], g[1], lo, hi)}
		}
	}
	return sf, nil
}

// checkFooter refuses a Parquet file whose framing cannot be right before
// the decoder parses it: the magic at both ends and a footer length that
// fits the file and maxFooterBytes.
func checkFooter(b []byte) error {
	const magic = "PAR1"
	if len(b) < 12 || !bytes.HasPrefix(b, []byte(magic)) || !bytes.HasSuffix(b, []byte(magic)) {
		return errors.New("not a Parquet file: bad magic or too short")
	}
	n := int64(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if n > int64(len(b))-12 || n > maxFooterBytes {
		return fmt.Errorf("footer of %d bytes does not fit a %d-byte file", n, len(b))
	}
	return nil
}
