package echomq_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/echomq/echomq"
)

// base62Oracle decodes with big.Int, independent of the codec under test.
func base62Oracle(s string) (*big.Int, bool) {
	const alph = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	n := new(big.Int)
	for i := range len(s) {
		d := strings.IndexByte(alph, s[i])
		if d < 0 {
			return nil, false
		}
		n.Mul(n, big.NewInt(62))
		n.Add(n, big.NewInt(int64(d)))
	}
	return n, true
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"EVT000xY9Wvvcd", "USR0KHTOWnGLuC", "USRzzzzzzzzzzz", "EVTAzL8n0Y58m7", "EVTAzL8n0Y58m8", "usr0KHTOWnGLuC", "", "EVT"} {
		f.Add(s)
	}
	maxInt63 := new(big.Int).SetUint64(1<<63 - 1)
	f.Fuzz(func(t *testing.T, s string) {
		id, err := echomq.ParseID(s)
		if err != nil {
			return
		}
		if id.String() != s {
			t.Fatalf("round trip: %q → %q", s, id.String())
		}
		n, ok := base62Oracle(s[3:])
		if !ok || n.Cmp(maxInt63) > 0 || n.Int64() != int64(id.Snowflake()) {
			t.Fatalf("oracle disagrees on %q", s)
		}
		if back, ok := id.EntryID().Snowflake(); !ok || back != id.Snowflake() {
			t.Fatalf("A1 mapping does not invert for %q", s)
		}
	})
}

func FuzzIDOrder(f *testing.F) {
	f.Add(int64(0), int64(1))
	f.Add(int64(209715201620567), int64(274557032793636864))
	f.Add(int64(1<<22-1), int64(1<<22))
	f.Fuzz(func(t *testing.T, a, b int64) {
		if a < 0 || b < 0 {
			return
		}
		x, y := echomq.MustID("EVT", echomq.Snowflake(a)), echomq.MustID("EVT", echomq.Snowflake(b))
		want := cmpInt(a, b)
		if got := strings.Compare(x.String(), y.String()); got != want {
			t.Fatalf("byte order %d, want %d", got, want)
		}
		if got := x.EntryID().Compare(y.EntryID()); got != want {
			t.Fatalf("A1 order %d, want %d", got, want)
		}
	})
}

func FuzzParseEntryID(f *testing.F) {
	for _, s := range []string{"1704117200000-1620567", "0-0", "5", "18446744073709551615-18446744073709551615", "1-", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := echomq.ParseEntryID(s)
		if err != nil {
			return
		}
		// Leading zeros are accepted (the engine reads them the same way);
		// the printed form is canonical and parses back to the same id.
		back, err := echomq.ParseEntryID(e.String())
		if err != nil || back != e {
			t.Fatalf("round trip: %q → %q → %v", s, e.String(), back)
		}
	})
}

func FuzzParseBound(f *testing.F) {
	for _, s := range []string{"-", "+", "(5-1", "5", "EVT000xY9Wvvcd", "(EVT000xY9Wvvcd", "((5", "(", "JOB000xY9Wvvcd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := echomq.ParseBound(s)
		if err != nil {
			return
		}
		if b.IsUnbounded() {
			return
		}
		again, err := echomq.ParseBound(b.String())
		if err != nil || again != b {
			t.Fatalf("%q → %q does not parse back the same", s, b.String())
		}
	})
}
