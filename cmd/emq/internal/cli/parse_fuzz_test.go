package cli

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseTime: the time parser never panics; what it accepts is a usage
// error or a time, and an RFC3339 rendering of an accepted absolute time
// parses back to the same instant.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"now", "now-1h", "now+90s", "-1h30m", "2025-06-01", "2025-06-01T12:00:00Z", "2025-06-01T12:00:00.123+02:00", "1748779200000", "", "now-", "9999999999999999999"} {
		f.Add(s)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := parseTime(s, now)
		if err != nil {
			if exitCode(err) != ExitUsage {
				t.Fatalf("parseTime(%q): %v is not a usage error", s, err)
			}
			return
		}
		if back, err := parseTime(tm.UTC().Format(time.RFC3339Nano), now); err == nil && !back.Equal(tm) {
			t.Fatalf("parseTime(%q) = %v, its RFC3339 form reads %v", s, tm, back)
		}
	})
}

// FuzzParseMinID: --minid never panics and refuses with usage errors only.
func FuzzParseMinID(f *testing.F) {
	for _, s := range []string{"now", "-24h", "5-3", "EVT000xY9Wvvcd", "2025-06-01T12:00:03Z", "(5-3", ""} {
		f.Add(s)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := parseMinID(s, now); err != nil && exitCode(err) != ExitUsage {
			t.Fatalf("parseMinID(%q): %v is not a usage error", s, err)
		}
	})
}

// FuzzParseS3: the --s3 URL parser never panics; an accepted URL names a
// host and a bucket, and its prefix is empty or ends in "/".
func FuzzParseS3(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:9000/bucket", "https://s3.example.com/b/p/q?region=eu", "http://u:p@h/b", "ftp://h/b", "http://h", "http://h/", "http://h/b?x=1", "%zz", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := parseS3(s)
		if err != nil {
			return
		}
		if cfg.Endpoint == "" || cfg.Bucket == "" || strings.Contains(cfg.Bucket, "/") {
			t.Fatalf("parseS3(%q) accepted %+v", s, cfg)
		}
		if cfg.Prefix != "" && !strings.HasSuffix(cfg.Prefix, "/") {
			t.Fatalf("parseS3(%q): prefix %q", s, cfg.Prefix)
		}
	})
}
