package wire

import "testing"

// FuzzDecodeCount: the count script's reply decoder takes any value the
// engine (or a proxy) hands back without panicking, and accepts exactly
// the pairs of integers with an exactness flag.
func FuzzDecodeCount(f *testing.F) {
	f.Add(int64(3), int64(1), 2, false)
	f.Add(int64(10000), int64(0), 2, false)
	f.Add(int64(0), int64(1), 1, true)
	f.Fuzz(func(t *testing.T, n, exact int64, size int, asString bool) {
		var v any
		if size >= 0 && size <= 4 {
			arr := make([]any, size)
			for i := range arr {
				switch {
				case asString:
					arr[i] = "x"
				case i == 0:
					arr[i] = n
				default:
					arr[i] = exact
				}
			}
			v = arr
		} else {
			v = n
		}
		got, ex, err := decodeCount(v)
		valid := size == 2 && !asString
		if valid != (err == nil) {
			t.Fatalf("decodeCount(%v): err %v", v, err)
		}
		if valid && (got != n || ex != (exact == 1)) {
			t.Fatalf("decodeCount(%v) = %d, %v", v, got, ex)
		}
	})
}
