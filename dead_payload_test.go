package echomq

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDeadPayload: the dead-letter payload is the JSON array of the
// original's [name, value] pairs, in order, with non-UTF-8 bytes kept
// exactly through {"base64": …}.
func TestDeadPayload(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   Fields
		want string
	}{
		{"empty", Fields{}, `[]`},
		{"pairs in order", F("room", "ROM1", "points", "480", "room", "again"), `[["room","ROM1"],["points","480"],["room","again"]]`},
		{"escapes", F("q", `"<&>"`, "nl", "a\nb"), `[["q","\"\u003c\u0026\u003e\""],["nl","a\nb"]]`},
		{"binary", F("blob", "\xff\x00A"), `[["blob",{"base64":"/wBB"}]]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := encodePayload(tc.in)
			require.Equal(t, tc.want, got)
			back, err := decodePayload(got)
			require.NoError(t, err)
			require.Equal(t, tc.in, back)
		})
	}
	for _, bad := range []string{``, `{}`, `[["a"]]`, `[["a",1]]`, `[["a",{"base64":"!"}]]`, `[["a",{"b64":"AA=="}]]`} {
		_, err := decodePayload(bad)
		require.Error(t, err, bad)
	}
}

// FuzzDeadPayload: any payload survives the round trip byte for byte, and
// decoding arbitrary text never panics.
func FuzzDeadPayload(f *testing.F) {
	f.Add("room", "ROM1", "points", "480")
	f.Add("", "", "\xff", "\x00")
	f.Add(`[["a","b"]]`, `{"base64":"AA=="}`, "é", "\xed\xa0\x80")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		in := F(a, b, c, d)
		back, err := decodePayload(encodePayload(in))
		require.NoError(t, err)
		require.Equal(t, in, back)
		_, _ = decodePayload(a + b)
	})
}
