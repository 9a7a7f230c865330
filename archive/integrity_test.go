package archive_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/retention"
)

// integrityFixture: 40 entries archived as four segments of 10, 5 live.
type integrityFixture struct {
	store archive.Store
	a     *archive.Archiver
	s     *echomq.Stream
	q     string
	m     *archive.Manifest
	all   []echomq.ID
}

func newIntegrityFixture(t *testing.T) *integrityFixture {
	t.Helper()
	ctx := context.Background()
	c := newClient(t)
	f := &integrityFixture{q: echomqtest.Queue(t), store: newStore(t, "fs")}
	f.s = c.Stream(f.q, "ev")
	f.all = appendN(t, f.s, 0, 45)
	f.a = newArchiver(t, c, f.store, &archive.Config{SegmentEntries: 10})
	_, err := f.a.Cycle(ctx, archive.Policy{Queue: f.q, Stream: "ev", Keep: retention.MaxLen(5)})
	require.NoError(t, err)
	f.m, err = archive.LoadManifest(ctx, f.store, f.q, "ev")
	require.NoError(t, err)
	require.Len(t, f.m.Segments, 4)
	for _, seg := range f.m.Segments {
		require.Len(t, seg.SHA256, 64, "every new segment carries its checksum")
	}
	return f
}

// corrupt flips one byte of segment i in the store.
func (f *integrityFixture) corrupt(t *testing.T, i int) archive.Segment {
	t.Helper()
	seg := f.m.Segments[i]
	b, err := f.store.Get(context.Background(), seg.Name)
	require.NoError(t, err)
	b[len(b)/3] ^= 0x01
	require.NoError(t, f.store.Put(context.Background(), seg.Name, b, nil))
	return seg
}

// TestMergedReadFailsLoudly: a merged read over a corrupt segment yields
// every event before it and then an error naming it, never a silent gap;
// reads that do not touch it work; Verify lists exactly it; Restore stops.
func TestMergedReadFailsLoudly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newIntegrityFixture(t)
	bad := f.corrupt(t, 1)
	rd := f.a.Reader(f.q, "ev")

	_, err := rd.Read(ctx, echomq.All, nil)
	require.ErrorIs(t, err, archive.ErrCorrupt)
	var ce *archive.CorruptError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, bad.Name, ce.Name)
	require.Contains(t, ce.Reason, "checksum mismatch")

	var got []echomq.ID
	var scanErr error
	for ev, err := range rd.Scan(ctx, echomq.All, nil) {
		if err != nil {
			scanErr = err
			break
		}
		got = append(got, ev.ID)
	}
	require.ErrorIs(t, scanErr, archive.ErrCorrupt)
	require.Equal(t, f.all[:10], got, "the events before the bad segment, then the error")

	_, err = rd.Read(ctx, echomq.All, &echomq.ReadOpts{Reverse: true})
	require.ErrorIs(t, err, archive.ErrCorrupt)

	evs, err := rd.Read(ctx, echomq.Between(f.all[20], f.all[44]), nil)
	require.NoError(t, err, "a range that misses the bad segment reads")
	require.Len(t, evs, 25)

	res, err := archive.Verify(ctx, f.store, f.q, "ev")
	require.NoError(t, err)
	require.False(t, res.OK())
	require.Len(t, res.Bad, 1)
	require.Equal(t, bad, res.Bad[0].Segment)
	require.Equal(t, int64(10), res.Bad[0].Segment.Count, "exactly which entries a quarantine loses")
	require.ErrorIs(t, res.Err(), archive.ErrCorrupt)

	_, err = f.a.Restore(ctx, archive.StreamRef{Queue: f.q, Stream: "ev"}, f.s.Client().Stream(f.q, "copy"), nil)
	require.ErrorIs(t, err, archive.ErrCorrupt)
}

// TestMissingAndOversizedSegment: a segment the store lost, or one larger
// than the manifest says, is corrupt.
func TestMissingAndOversizedSegment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newIntegrityFixture(t)
	seg := f.m.Segments[3]
	b, err := f.store.Get(ctx, seg.Name)
	require.NoError(t, err)
	require.NoError(t, f.store.Put(ctx, seg.Name, append(b, make([]byte, 1<<20)...), nil))
	_, err = f.a.Reader(f.q, "ev").Read(ctx, echomq.All, nil)
	var ce *archive.CorruptError
	require.ErrorAs(t, err, &ce)
	require.Contains(t, ce.Reason, "larger than")

	require.NoError(t, f.store.(archive.Deleter).Delete(ctx, seg.Name))
	res, err := archive.Verify(ctx, f.store, f.q, "ev")
	require.NoError(t, err)
	require.Len(t, res.Bad, 1)
	require.Contains(t, res.Bad[0].Err.Error(), "does not hold")
}

// TestLegacyManifest: a format 1 manifest (no checksums) still reads; its
// segments are decoded in full by Verify and counted as unchecksummed; the
// next cycle commits format 2 with checksums for its new segments.
func TestLegacyManifest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newIntegrityFixture(t)
	name := "queue=" + f.q + "/stream=ev/manifests/00000000000000000001.json"
	b, err := f.store.Get(ctx, name)
	require.NoError(t, err)
	var j map[string]any
	require.NoError(t, json.Unmarshal(b, &j))
	j["format"] = 1
	delete(j, "checksum")
	for _, s := range j["segments"].([]any) {
		delete(s.(map[string]any), "sha256")
	}
	legacy, err := json.MarshalIndent(j, "", "  ")
	require.NoError(t, err)
	require.NoError(t, f.store.Put(ctx, name, legacy, nil))

	m, err := archive.LoadManifest(ctx, f.store, f.q, "ev")
	require.NoError(t, err)
	require.Empty(t, m.Segments[0].SHA256)
	evs, err := f.a.Reader(f.q, "ev").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 45)
	res, err := archive.Verify(ctx, f.store, f.q, "ev")
	require.NoError(t, err)
	require.True(t, res.OK())
	require.Equal(t, 4, res.Unchecksummed)

	appendN(t, f.s, 45, 10)
	_, err = f.a.Cycle(ctx, archive.Policy{Queue: f.q, Stream: "ev", Keep: retention.MaxLen(0)})
	require.NoError(t, err)
	res, err = archive.Verify(ctx, f.store, f.q, "ev")
	require.NoError(t, err)
	require.True(t, res.OK())
	require.Equal(t, 4, res.Unchecksummed, "old segments keep no checksum; new ones have one")
	require.Equal(t, 6, res.Segments)

	// A flip in a legacy manifest's JSON that still parses is caught by
	// its invariants where they cover it; a format 2 manifest stripped of
	// its checksum is refused.
	var j2 map[string]any
	b, err = f.store.Get(ctx, "queue="+f.q+"/stream=ev/manifests/00000000000000000002.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &j2))
	delete(j2, "checksum")
	stripped, err := json.Marshal(j2)
	require.NoError(t, err)
	require.NoError(t, f.store.Put(ctx, "queue="+f.q+"/stream=ev/manifests/00000000000000000002.json", stripped, nil))
	_, err = archive.LoadManifest(ctx, f.store, f.q, "ev")
	require.ErrorIs(t, err, archive.ErrCorrupt, "%v", err)
}
