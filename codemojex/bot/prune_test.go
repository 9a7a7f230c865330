package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

func TestNoticeTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key  string
		want time.Time
		ok   bool
	}{
		{"EVT000xY9Wvvcd.PLR0KHTOWnGLuC", time.UnixMilli(1704117200000), true},
		{"1704117200000-5.PLR0KHTOWnGLuC", time.UnixMilli(1704117200000), true},
		{"EVT000xY9Wvvcd", time.Time{}, false},
		{"nonsense.PLR0KHTOWnGLuC", time.Time{}, false},
		{"", time.Time{}, false},
	} {
		got, ok := noticeTime(tc.key)
		require.Equal(t, tc.ok, ok, tc.key)
		require.True(t, tc.want.Equal(got), "%s: %v", tc.key, got)
	}
}

// FuzzNoticeTime: any key parses without a panic, and a key made from an
// id and a player reads back the id's time.
func FuzzNoticeTime(f *testing.F) {
	for _, s := range []string{"EVT000xY9Wvvcd.PLR0KHTOWnGLuC", "1704117200000-5.PLR0KHTOWnGLuC", ".", "..", "EVT000xY9Wvvcd", "-1.x", "18446744073709551615-0.p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		at, ok := noticeTime(key)
		if !ok {
			require.True(t, at.IsZero())
			return
		}
		event, _, _ := strings.Cut(key, ".")
		if id, err := echomq.ParseID(event); err == nil {
			require.True(t, id.Time().Equal(at))
		}
	})
}
