package archive

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/echomq/echomq"
)

// The corruption sweep: every single-byte change and every truncation of a
// real multi-row-group segment and of a real manifest must be refused as a
// *CorruptError naming the object, with no panic, no read over a second and
// no allocation over 64 MiB. CI runs a sample (every 97th offset); the full
// sweep runs with
//
//	EMQ_ARCHIVE_SWEEP=full go test -timeout 2h -run TestCorruptionSweep -v ./archive/
//
// and prints its figures (docs/archive.md records them). A change is the
// byte XOR 0xFF, which alters every bit of it.
const (
	sweepStride   = 97
	sweepMaxTime  = time.Second
	sweepMaxAlloc = 64 << 20
)

// sweepSegment builds a segment of three row groups (two full, one partial)
// with binary values, and its manifest entry.
func sweepSegment(t testing.TB) (Segment, []byte) {
	t.Helper()
	sw := newSegmentWriter("q", "s")
	n := 2*rowGroupRows + 300
	var first, last echomq.ID
	for i := range n {
		id := echomq.MustID(echomq.BrandEvent, echomq.Snowflake(uint64(1000+i)<<22|uint64(i%7)))
		ev := echomq.Event{ID: id, Entry: id.EntryID(), Fields: echomq.Fields{"k", strconv.Itoa(i % 13), "v", fmt.Sprintf("value-%d-\x00\xff", i)}}
		if i == 0 {
			first = id
		}
		last = id
		if err := sw.add(ev); err != nil {
			t.Fatal(err)
		}
	}
	b, err := sw.finish(first, last)
	if err != nil {
		t.Fatal(err)
	}
	b = append([]byte(nil), b...)
	seg := Segment{Name: segmentName("q", "s", first, last), First: first, Last: last, Count: int64(n), Bytes: int64(len(b)), SHA256: segmentSum(b)}
	sf, err := checkSegment(seg, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(sf.groups) != 3 {
		t.Fatalf("want 3 row groups, got %d", len(sf.groups))
	}
	if err := verifyRows(sf, seg); err != nil {
		t.Fatal(err)
	}
	return seg, b
}

// sweepManifest returns a manifest of three segments and its bytes.
func sweepManifest(seg Segment) (string, []byte) {
	a := echomq.MustID(echomq.BrandEvent, echomq.Snowflake(1<<22))
	b := echomq.MustID(echomq.BrandEvent, echomq.Snowflake(5<<22))
	m := (&Manifest{Queue: "q", Stream: "s"}).next([]Segment{
		{Name: segmentName("q", "s", a, b), First: a, Last: b, Count: 3, Bytes: 100, SHA256: segmentSum([]byte("x"))},
		seg,
	}, time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC))
	return manifestName("q", "s", 1), m.encode()
}

// sweepStats counts the outcomes of a sweep.
type sweepStats struct {
	variants, detected, panics, slow, heavy int
	maxTime                                 time.Duration
	maxAlloc                                uint64
}

// try runs fn on one variant, measuring it, and checks the outcome is a
// *CorruptError naming name.
func (st *sweepStats) try(t *testing.T, what, name string, fn func() error) {
	t.Helper()
	st.variants++
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	err, panicked := func() (err error, panicked bool) {
		defer func() {
			if p := recover(); p != nil {
				panicked = true
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		return fn(), false
	}()
	d := time.Since(start)
	runtime.ReadMemStats(&ms1)
	alloc := ms1.TotalAlloc - ms0.TotalAlloc
	st.maxTime, st.maxAlloc = max(st.maxTime, d), max(st.maxAlloc, alloc)
	var ce *CorruptError
	switch {
	case panicked:
		st.panics++
		t.Errorf("%s: %v", what, err)
	case d > sweepMaxTime:
		st.slow++
		t.Errorf("%s: took %v", what, d)
	case alloc > sweepMaxAlloc:
		st.heavy++
		t.Errorf("%s: allocated %d bytes", what, alloc)
	case !errors.Is(err, ErrCorrupt) || !errors.As(err, &ce) || ce.Name != name:
		t.Errorf("%s: not detected as corrupt %s: %v", what, name, err)
	default:
		st.detected++
	}
}

func sweepStep(t *testing.T) int {
	if os.Getenv("EMQ_ARCHIVE_SWEEP") == "full" {
		return 1
	}
	return sweepStride
}

func TestCorruptionSweep(t *testing.T) {
	t.Parallel()
	step := sweepStep(t)
	seg, b := sweepSegment(t)
	objName, mb := sweepManifest(seg)
	for _, tc := range []struct {
		kind, name string
		data       []byte
		check      func([]byte) error
	}{
		{"segment", seg.Name, b, func(v []byte) error {
			sf, err := checkSegment(seg, v)
			if err != nil {
				return err
			}
			return verifyRows(sf, seg)
		}},
		{"manifest", objName, mb, func(v []byte) error {
			_, err := decodeManifest(objName, "q", "s", 1, v)
			return err
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			var flips, cuts sweepStats
			step := step
			if tc.kind == "manifest" {
				step = 1 // a manifest is small: always sweep it whole
			}
			v := make([]byte, len(tc.data))
			for off := 0; off < len(tc.data); off += step {
				copy(v, tc.data)
				v[off] ^= 0xFF
				flips.try(t, fmt.Sprintf("%s flip at %d", tc.kind, off), tc.name, func() error { return tc.check(v) })
			}
			for n := 0; n < len(tc.data); n += step {
				cuts.try(t, fmt.Sprintf("%s truncated to %d", tc.kind, n), tc.name, func() error { return tc.check(tc.data[:n:n]) })
			}
			for _, s := range []struct {
				what string
				st   sweepStats
			}{{"flips", flips}, {"truncations", cuts}} {
				t.Logf("%s of %d bytes (every %d): %s %d variants, %d detected, %d panics, %d over %v, %d over %d MiB; slowest %v, most allocated %d KiB",
					tc.kind, len(tc.data), step, s.what, s.st.variants, s.st.detected, s.st.panics, s.st.slow, sweepMaxTime, s.st.heavy, sweepMaxAlloc>>20, s.st.maxTime, s.st.maxAlloc>>10)
			}
		})
	}
}

// TestCorruptionSweepUnchecksummed measures the guarded decoder alone: the
// segment sweep with no checksum to catch the change first, as for a
// segment a format 1 manifest committed (or a forged manifest vouching for
// hostile bytes). A change that still decodes is not detectable without a
// checksum and is counted, not failed, as is a read over a second; a panic
// escaping or an allocation over 64 MiB fails. Full sweep only, over every
// 13th offset (a full decode per variant makes every offset take ~20 min).
func TestCorruptionSweepUnchecksummed(t *testing.T) {
	if os.Getenv("EMQ_ARCHIVE_SWEEP") != "full" {
		t.Skip("set EMQ_ARCHIVE_SWEEP=full")
	}
	seg, b := sweepSegment(t)
	seg.SHA256 = ""
	var st sweepStats
	undetected := 0
	v := make([]byte, len(b))
	for off := 0; off < len(b); off += 13 {
		copy(v, b)
		v[off] ^= 0xFF
		st.variants++
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- fmt.Errorf("escaped panic: %v", p)
				}
			}()
			sf, err := checkSegment(seg, v)
			if err == nil {
				err = verifyRows(sf, seg)
			}
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("flip at %d: decoder still running after 30s", off)
		}
		d := time.Since(start)
		runtime.ReadMemStats(&ms1)
		alloc := ms1.TotalAlloc - ms0.TotalAlloc
		st.maxTime, st.maxAlloc = max(st.maxTime, d), max(st.maxAlloc, alloc)
		if d > sweepMaxTime {
			st.slow++ // a figure, not a failure: no checksum guards this path
			t.Logf("flip at %d: took %v", off, d)
		}
		var ce *CorruptError
		switch {
		case err != nil && !errors.As(err, &ce):
			st.panics++
			t.Errorf("flip at %d: %v", off, err)
		case alloc > sweepMaxAlloc:
			st.heavy++
			t.Errorf("flip at %d: allocated %d MiB", off, alloc>>20)
		case err == nil:
			undetected++
		default:
			st.detected++
		}
	}
	t.Logf("unchecksummed segment of %d bytes: %d flips, %d detected by the guarded decoder, %d decoded as other data, %d escaped, %d over %v, %d over %d MiB; slowest %v, most allocated %d KiB",
		len(b), st.variants, st.detected, undetected, st.panics, st.slow, sweepMaxTime, st.heavy, sweepMaxAlloc>>20, st.maxTime, st.maxAlloc>>10)
}
