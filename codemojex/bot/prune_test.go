package bot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
