package cli

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

func TestParseTime(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{in: "now", want: now},
		{in: "now-15m", want: now.Add(-15 * time.Minute)},
		{in: "now+1h", want: now.Add(time.Hour)},
		{in: "-1h30m", want: now.Add(-90 * time.Minute)},
		{in: "+250ms", want: now.Add(250 * time.Millisecond)},
		{in: "2024-06-01T12:00:00Z", want: time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)},
		{in: "2024-06-01T14:00:00.5+02:00", want: time.Date(2024, 6, 1, 12, 0, 0, 500e6, time.UTC)},
		{in: "2024-06-01T12:00:00", want: time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)},
		{in: "2024-06-01", want: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)},
		{in: "", wantErr: true},
		{in: "1h", wantErr: true},
		{in: "nowish", wantErr: true},
		{in: "now-", wantErr: true},
		{in: "yesterday", wantErr: true},
		{in: "2024-13-01", wantErr: true},
		{in: "-now", wantErr: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := parseTime(tc.in, now)
			if tc.wantErr {
				require.Equal(t, ExitUsage, exitCode(err), "%v", err)
				return
			}
			require.NoError(t, err)
			require.True(t, tc.want.Equal(got), "got %s", got)
		})
	}
}

func TestParseBound(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	ms := uint64(now.UnixMilli())
	evt := echomq.MustID(echomq.BrandEvent, snowAt(now))
	for _, tc := range []struct {
		name  string
		in    string
		lower bool
		want  echomq.Bound
		err   error
	}{
		{name: "minus", in: "-", lower: true, want: echomq.Unbounded},
		{name: "plus", in: "+", want: echomq.Unbounded},
		{name: "entry", in: "5-3", lower: true, want: echomq.Inclusive(echomq.EntryID{Ms: 5, Seq: 3})},
		{name: "exclusive entry", in: "(5-3", want: echomq.Exclusive(echomq.EntryID{Ms: 5, Seq: 3})},
		{name: "evt", in: evt.String(), lower: true, want: echomq.At(evt)},
		{name: "exclusive evt", in: "(" + evt.String(), lower: true, want: echomq.After(evt)},
		{name: "time as lower", in: "now", lower: true, want: echomq.Inclusive(echomq.EntryID{Ms: ms})},
		{name: "time as upper", in: "now", want: echomq.Inclusive(echomq.EntryID{Ms: ms, Seq: 4194303})},
		{name: "exclusive time as lower", in: "(now", lower: true, want: echomq.Exclusive(echomq.EntryID{Ms: ms, Seq: 4194303})},
		{name: "exclusive time as upper", in: "(now", want: echomq.Exclusive(echomq.EntryID{Ms: ms})},
		{name: "other brand", in: "JOB0KHTOWnGLuC", lower: true, err: echomq.ErrWrongKind},
		{name: "bad base62", in: "EVT!!!!!!!!!!!", lower: true, err: echomq.ErrMalformedID},
		{name: "garbage", in: "soon", lower: true, err: &usageError{}},
		{name: "lone paren", in: "(", lower: true, err: &usageError{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseBound(tc.in, tc.lower, now)
			if tc.err != nil {
				if u, ok := errors.AsType[*usageError](tc.err); ok {
					require.ErrorAs(t, err, &u)
				} else {
					require.ErrorIs(t, err, tc.err)
				}
				require.Equal(t, ExitUsage, exitCode(err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseFields(t *testing.T) {
	t.Parallel()
	f, err := parseFields([]string{"b=1", "a=x=y", "empty=", "b=2"})
	require.NoError(t, err)
	require.Equal(t, echomq.F("b", "1", "a", "x=y", "empty", "", "b", "2"), f)
	for _, bad := range [][]string{{"novalue"}, {"=v"}, {"k=v", "id=EVT"}} {
		_, err := parseFields(bad)
		require.Equal(t, ExitUsage, exitCode(err), "%v: %v", bad, err)
	}
}

func TestRelativeArgs(t *testing.T) {
	t.Parallel()
	got := relativeArgs([]string{"-1h", "-1h30m", "-1.5s", "-n", "-1", "--from", "-90s", "-", "+1h", "-h", "-15m"})
	require.Equal(t, []string{"now-1h", "now-1h30m", "now-1.5s", "-n", "-1", "--from", "now-90s", "-", "+1h", "-h", "now-15m"}, got)
	require.NotNil(t, relativeArgs(nil), "cobra reads os.Args when given nil")
}

func TestFieldsText(t *testing.T) {
	t.Parallel()
	got := fieldsText(echomq.F("a", "plain", "b", "two words", "c", "", "d", "x=y", "e", "tab\there", "f", "é", "g", `q"`))
	require.Equal(t, `a=plain b="two words" c="" d="x=y" e="tab\there" f=é g="q\""`, got)
}

func TestOrderedFieldsJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(orderedFields(echomq.F("z", "1", "a", "<&>", "m", "line\nbreak")))
	require.NoError(t, err)
	require.Equal(t, `{"z":"1","a":"\u003c\u0026\u003e","m":"line\nbreak"}`, string(b)) //nolint:testifylint // the bytes, field order included, not only the JSON value
	b, err = json.Marshal(orderedFields(nil))
	require.NoError(t, err)
	require.Equal(t, `{}`, string(b))
}

func FuzzParseBound(f *testing.F) {
	for _, s := range []string{"-", "+", "5-3", "(5-3", "EVT000xY9Wvvcd", "(EVT000xY9Wvvcd", "now", "(now-1h", "2024-06-01", "(", ""} {
		f.Add(s, true)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string, lower bool) {
		b, err := parseBound(s, lower, now)
		if err != nil {
			if exitCode(err) != ExitUsage {
				t.Fatalf("parseBound(%q): %v is not a usage error", s, err)
			}
			return
		}
		if s == "-" || s == "+" || s == "" {
			return
		}
		// Any accepted bound reads back as a bound of the same kind.
		if b.IsUnbounded() {
			t.Fatalf("parseBound(%q) is unbounded", s)
		}
	})
}

func FuzzOrderedFields(f *testing.F) {
	f.Add("name", "value", "other", "")
	f.Add("a\"b", "<tag>", "ü", "\x00")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		b, err := json.Marshal(orderedFields(echomq.F(k1, v1, k2, v2)))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if k1 != k2 && valid(k1, v1, k2, v2) && (m[k1] != v1 || m[k2] != v2) {
			t.Fatalf("%s does not hold %q=%q %q=%q", b, k1, v1, k2, v2)
		}
	})
}

// valid reports whether every string is valid UTF-8 (checked one by one:
// invalid halves can join into a valid whole).
func valid(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// snowAt is the smallest snowflake mintable at t.
func snowAt(t time.Time) echomq.Snowflake {
	s, _ := echomq.Floor(t).Snowflake()
	return s
}
