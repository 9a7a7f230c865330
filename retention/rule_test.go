package retention_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/retention"
)

func TestRuleSpec(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		rule retention.Rule
		spec string
	}{
		{"maxlen approx", retention.MaxLen(100), "MAXLEN ~ 100"},
		{"maxlen exact", retention.MaxLen(0).Exact(), "MAXLEN = 0"},
		{"minid", retention.MinTime(now), "MINID ~ " + echomq.Floor(now).String()},
		{"ago exact", retention.Ago(time.Hour).Exact(), "MINID = " + echomq.Floor(now.Add(-time.Hour)).String()},
		{"ago zero", retention.Ago(0), "MINID ~ " + echomq.Floor(now).String()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec, err := tc.rule.Spec(now)
			require.NoError(t, err)
			require.Equal(t, tc.spec, spec.String())
			back, err := retention.ParseRule(tc.rule.String())
			require.NoError(t, err)
			require.Equal(t, tc.rule.String(), back.String(), "String and ParseRule round-trip")
		})
	}
}

func TestParseRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		wantErr  bool
	}{
		{in: "maxlen 1000", want: "maxlen 1000"},
		{in: "  MAXLEN 5 EXACT ", want: "maxlen 5 exact"},
		{in: "maxlen 5 =", want: "maxlen 5 exact"},
		{in: "maxlen 5 ~", want: "maxlen 5"},
		{in: "minid 2026-05-01T00:00:00Z", want: "minid 2026-05-01T00:00:00Z"},
		{in: "ago 7d approx", want: "ago 168h0m0s"},
		{in: "ago 90s exact", want: "ago 1m30s exact"},
		{in: "", wantErr: true},
		{in: "maxlen", wantErr: true},
		{in: "maxlen -1", wantErr: true},
		{in: "maxlen many", wantErr: true},
		{in: "maxlen 1 sloppy", wantErr: true},
		{in: "maxlen 1 exact extra", wantErr: true},
		{in: "minid yesterday", wantErr: true},
		{in: "minid 1960-01-01T00:00:00Z", wantErr: true},
		{in: "ago -5m", wantErr: true},
		{in: "ago 99999999999999999d", wantErr: true},
		{in: "keep 5", wantErr: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			r, err := retention.ParseRule(tc.in)
			if tc.wantErr {
				require.ErrorIs(t, err, echomq.ErrInvalidArgument)
				var ae *echomq.ArgumentError
				require.ErrorAs(t, err, &ae)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, r.String())
		})
	}
}

func TestParsePolicy(t *testing.T) {
	t.Parallel()
	p, err := retention.ParsePolicy("cm/guess-scored maxlen 10 exact")
	require.NoError(t, err)
	require.Equal(t, retention.Policy{Queue: "cm", Stream: "guess-scored", Rule: retention.MaxLen(10).Exact()}, p)
	require.Equal(t, "cm/guess-scored maxlen 10 exact", p.String())
	for _, bad := range []string{"cm maxlen 1", "cm/s", "emq/s maxlen 1", "cm/s:x maxlen 1", "cm/s maxlen x"} {
		_, err := retention.ParsePolicy(bad)
		require.Error(t, err, bad)
		require.True(t, errorsIsAny(err, echomq.ErrInvalidArgument, echomq.ErrInvalidName), bad)
	}
	require.ErrorIs(t, retention.Policy{Queue: "cm", Stream: "s"}.Validate(), echomq.ErrInvalidArgument, "the zero rule")
}

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errorsIs(err, t) {
			return true
		}
	}
	return false
}

// FuzzParseRule: the parser never panics, and what it accepts renders to a
// string it parses back to the same rule.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"maxlen 1000", "minid 2026-05-01T00:00:00Z exact", "ago 7d", "ago 1h30m ~", "maxlen -1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := retention.ParseRule(s)
		if err != nil {
			return
		}
		if r.Validate() != nil {
			t.Fatalf("accepted an invalid rule from %q", s)
		}
		back, err := retention.ParseRule(r.String())
		if err != nil || back.String() != r.String() {
			t.Fatalf("%q -> %q does not round-trip: %v", s, r.String(), err)
		}
	})
}
