package dashboard

import (
	"errors"
	"testing"
	"time"

	"github.com/echomq/echomq"
)

// FuzzParseBound: any text is an open bound, a bound, or an *InputError;
// never a panic; an instant's bound covers its millisecond.
func FuzzParseBound(f *testing.F) {
	for _, s := range []string{
		"", "-", "+", "now", "now-15m", "-1h30m", "-90s", "2026-01-02T15:04:05Z",
		"2026-01-02T15:04", "2026-01-02", "1704117200000-1620567", "(1704117200000-5", "EVT000xY9Wvvcd",
		"(EVT000xY9Wvvcd", "-1x", "now+1", "1999-01-01", "9999-12-31T23:59:59Z", "-9999999h",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string, upper bool) {
		b, err := parseBound("from", s, now, upper)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, ErrBadInput) {
				t.Fatalf("%q: untyped error %v", s, err)
			}
			return
		}
		if t0, ok, _ := parseInstant(s, now); ok && !b.IsUnbounded() {
			e, excl := b.EntryID()
			want := echomq.Floor(t0)
			if upper {
				want = echomq.Ceil(t0)
			}
			if excl || e != want {
				t.Fatalf("%q: bound %v, want %v", s, e, want)
			}
		}
	})
}

func TestParseBound(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		in      string
		upper   bool
		want    echomq.Bound
		wantErr bool
	}{
		{in: "", want: echomq.Unbounded},
		{in: "-", want: echomq.Unbounded},
		{in: "now", want: echomq.Inclusive(echomq.Floor(now))},
		{in: "now", upper: true, want: echomq.Inclusive(echomq.Ceil(now))},
		{in: "-15m", want: echomq.Inclusive(echomq.Floor(now.Add(-15 * time.Minute)))},
		{in: "now-1h", want: echomq.Inclusive(echomq.Floor(now.Add(-time.Hour)))},
		{in: "2026-01-02T15:04", want: echomq.Inclusive(echomq.Floor(time.Date(2026, 1, 2, 15, 4, 0, 0, time.UTC)))},
		{in: "(1704117200000-5", want: echomq.Exclusive(echomq.EntryID{Ms: 1704117200000, Seq: 5})},
		{in: "EVT000xY9Wvvcd", want: echomq.Inclusive(echomq.EntryID{Ms: 1704117200000, Seq: 1620567})},
		{in: "-1x", wantErr: true},
		{in: "now+1", wantErr: true},
		{in: "1969-12-31", wantErr: true},
		{in: "-999999h", wantErr: true},
		{in: "tomorrow", wantErr: true},
	} {
		got, err := parseBound("from", tc.in, now, tc.upper)
		if tc.wantErr {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("%q: err %v, want ErrBadInput", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Fatalf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
