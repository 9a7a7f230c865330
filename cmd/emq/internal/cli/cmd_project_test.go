package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seedGame appends a small game log at fixed instants before the clock's
// base reading (2025-06-01T12:00:00Z), so ids and buckets are the same in
// every run, and leaves the clock at base. guess-scored holds one event
// without a room and one whose points are not a number.
func (b *bundle) seedGame() {
	b.t.Helper()
	for _, ev := range []struct {
		at     time.Duration
		stream string
		fields []string
	}{
		{-90 * time.Minute, "guess-scored", []string{"room=lobby", "player=ann", "points=240"}},
		{-70 * time.Minute, "guess-scored", []string{"room=zen", "player=bob", "points=180"}},
		{-50 * time.Minute, "guess-scored", []string{"room=lobby", "player=bob", "points=360"}},
		{-45 * time.Minute, "game-settled", []string{"room=lobby", "player=cid", "points=480", "prize=50"}},
		{-40 * time.Minute, "guess-scored", []string{"room=lobby", "player=cid", "points=480"}},
		{-20*time.Minute - 30*time.Second, "guess-scored", []string{"room=blitz", "player=ann", "points=120"}},
		{-10 * time.Minute, "guess-scored", []string{"room=zen", "player=ann", "points=300"}},
		{-8 * time.Minute, "game-settled", []string{"room=zen", "player=ann", "points=300", "prize=20"}},
		{-5 * time.Minute, "guess-scored", []string{"player=dan", "points=n/a"}},
	} {
		b.at(ev.at).must(append([]string{"append", ev.stream}, ev.fields...)...)
	}
	b.at(0)
}

func TestProjectGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seedGame()
	b.note("count, total and per value of a field")
	b.step("project", "count", "guess-scored")
	b.step("--json", "project", "count", "guess-scored")
	b.step("project", "count", "--by", "room", "guess-scored")
	b.step("project", "count,by=room", "guess-scored")
	b.note("numeric folds skip what is not a number")
	b.step("project", "sum", "--field", "points", "guess-scored")
	b.step("project", "min", "--field", "points", "guess-scored")
	b.step("project", "max", "--field", "points", "guess-scored")
	b.step("project", "avg", "--field", "points", "guess-scored")
	b.step("project", "sum", "--field", "points", "--by", "player", "guess-scored")
	b.step("project", "stats", "--field", "points", "--by", "room", "guess-scored")
	b.step("--json", "project", "avg", "--field", "points", "--by", "room", "guess-scored")
	b.note("time buckets")
	b.step("project", "buckets", "--every", "hour", "guess-scored")
	b.step("project", "buckets", "--every", "minute", "guess-scored")
	b.step("project", "buckets,every=20m", "guess-scored")
	b.step("--json", "project", "buckets", "--every", "day", "guess-scored")
	b.note("latest per key, top, distinct")
	b.step("project", "latest", "--by", "room", "guess-scored")
	b.step("--json", "project", "latest", "--by", "player", "guess-scored")
	b.step("project", "top", "--field", "points", "-n", "3", "guess-scored")
	b.step("project", "top", "--field", "points", "--by", "player", "guess-scored")
	b.step("project", "distinct", "--field", "player", "guess-scored")
	b.golden("project")
}

func TestProjectWindowGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seedGame()
	b.note("the clock reads 2025-06-01T12:00:00Z")
	b.step("project", "count", "guess-scored", "--window", "all")
	b.step("project", "count", "guess-scored", "--window", "last:1h")
	b.step("--json", "project", "count", "guess-scored", "--window", "last:1h")
	b.step("project", "count", "guess-scored", "--since", "-1h")
	b.step("--json", "project", "count", "guess-scored", "--since", "2025-06-01T11:00:00Z")
	b.step("project", "count", "guess-scored", "--window", "since:now-15m")
	b.step("--json", "project", "count", "guess-scored", "--window", "between:-90m,-50m")
	b.step("project", "count", "guess-scored", "--window", "between:2025-06-01T10:30:00Z,2025-06-01T10:30:00Z")
	ids := strings.Fields(b.must("project", "top", "--field", "points", "-n", "1", "guess-scored"))
	b.note("an id range; ( excludes the bound")
	b.step("project", "count", "guess-scored", "--window", "ids:"+ids[len(ids)-3]+",+")
	b.step("--json", "project", "count", "guess-scored", "--window", "ids:("+ids[len(ids)-3]+",+")
	b.note("a missing stream folds as empty")
	b.step("project", "count", "--by", "room", "missing")
	b.step("--json", "project", "count", "--by", "room", "missing")
	b.golden("project_window")
}

func TestProjectFanInGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seedGame()
	b.note("two streams merged by entry id into one fold")
	b.step("project", "count", "guess-scored", "game-settled")
	b.step("project", "sum", "--field", "points", "--by", "player", "guess-scored", "game-settled")
	b.step("project", "count", "--by", "room", "guess-scored", "game-settled", "--window", "last:1h")
	b.step("project", "buckets", "--every", "hour", "guess-scored", "game-settled")
	b.step("project", "latest", "--by", "room", "guess-scored", "game-settled")
	b.step("--json", "project", "top", "--field", "points", "-n", "4", "game-settled", "guess-scored")
	b.golden("project_fanin")
}

// Every bad project command line exits 2 with one line on stderr naming
// the problem, before any I/O.
func TestProjectBadArguments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no arguments", []string{"project"}, "project takes FOLD STREAM... (got 0 arguments)"},
		{"no stream", []string{"project", "count"}, "project takes FOLD STREAM... (got 1 argument)"},
		{"unknown fold", []string{"project", "bogus", "s"}, `invalid fold spec "bogus": unknown fold "bogus"`},
		{"sum without field", []string{"project", "sum", "s"}, `invalid fold spec "sum": sum needs --field`},
		{"count with field", []string{"project", "count", "--field", "x", "s"}, `"count,field=x": count takes no field`},
		{"latest without by", []string{"project", "latest", "s"}, `invalid fold spec "latest": latest needs --by`},
		{"distinct with by", []string{"project", "distinct", "--field", "p", "--by", "r", "s"}, "distinct takes no by"},
		{"buckets without every", []string{"project", "buckets", "s"}, `invalid fold spec "buckets": buckets needs --every`},
		{"buckets bad every", []string{"project", "buckets", "--every", "fortnight", "s"}, "every=fortnight: want minute, hour, day or a duration"},
		{"buckets below a millisecond", []string{"project", "buckets", "--every", "1us", "s"}, "1µs is not a positive whole number of milliseconds"},
		{"top of none", []string{"project", "top", "--field", "p", "-n", "0", "s"}, "n must be at least 1, got 0"},
		{"count with -n", []string{"project", "count", "-n", "3", "s"}, `"count,n=3": count takes no n`},
		{"count not a number", []string{"project", "top", "--field", "p", "-n", "x", "s"}, `invalid argument "x" for "-n, --count"`},
		{"empty by", []string{"project", "count", "--by", "", "s"}, `invalid --by "": want a non-empty value without a comma`},
		{"comma in field", []string{"project", "sum", "--field", "a,b", "s"}, `invalid --field "a,b"`},
		{"argument twice", []string{"project", "count,by=a", "--by", "b", "s"}, "by given twice"},
		{"spec without value", []string{"project", "count,by", "s"}, `"by" is not name=value`},
		{"unknown spec argument", []string{"project", "count,per=room", "s"}, `unknown argument "per"`},
		{"unknown window form", []string{"project", "count", "s", "--window", "yesterday"}, `invalid --window "yesterday": unknown form "yesterday"`},
		{"window all with argument", []string{"project", "count", "s", "--window", "all:x"}, `"all" takes no argument`},
		{"time as window", []string{"project", "count", "s", "--window", "-1h"}, `invalid --window "now-1h": a time is not a window: use --since now-1h`},
		{"top without field", []string{"project", "top", "-n", "3", "s"}, `invalid fold spec "top,n=3": top needs --field`},
		{"last not a duration", []string{"project", "count", "s", "--window", "last:soon"}, `invalid --window "last:soon"`},
		{"last not positive", []string{"project", "count", "s", "--window", "last:-1h"}, "the duration must be positive"},
		{"since bad time", []string{"project", "count", "s", "--window", "since:soon"}, `invalid time "soon"`},
		{"between without end", []string{"project", "count", "s", "--window", "between:-1h"}, `invalid --window "between:-1h": want between:<from>,<to>`},
		{"between bad time", []string{"project", "count", "s", "--window", "between:-1h,later"}, `invalid time "later"`},
		{"inverted between", []string{"project", "count", "s", "--window", "between:now,-1h"}, `invalid --window "between:now,-1h": invalid range: 2025-06-01T12:00:00Z is above 2025-06-01T11:00:00Z`},
		{"ids bad bound", []string{"project", "count", "s", "--window", "ids:EVT!!!!!!!!!!!,+"}, "EVT!!!!!!!!!!!"},
		{"inverted ids", []string{"project", "count", "s", "--window", "ids:+5m,-5m"}, `invalid --window "ids:+5m,-5m": invalid range: 1748779500000-0 is above 1748778900000-4194303`},
		{"since flag bad time", []string{"project", "count", "s", "--since", "tomorrow"}, `invalid time "tomorrow"`},
		{"window and since", []string{"project", "count", "s", "--window", "all", "--since", "-1h"}, "--window and --since exclude each other"},
		{"bad stream name", []string{"project", "count", "a/b"}, `"a/b"`},
		{"one bad stream of two", []string{"project", "count", "s", "a b"}, `"a b"`},
		{"stream twice", []string{"project", "count", "s", "t", "s"}, `stream "s" given twice`},
		{"bad queue", []string{"-q", "a b", "project", "count", "s"}, `"a b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errs, code := b.run(tc.args...)
			require.Equal(t, ExitUsage, code, "stderr: %s", errs)
			require.Empty(t, out)
			require.True(t, strings.HasPrefix(errs, "emq: ") && strings.HasSuffix(errs, "\n"), "%q", errs)
			require.Equal(t, 1, strings.Count(errs, "\n"), "%q", errs)
			require.Contains(t, errs, tc.want)
			require.NotContains(t, errs, "echomq:", "the library prefix is dropped")
		})
	}
}

func TestProjectRuntimeError(t *testing.T) {
	t.Parallel()
	b := setupEmbedded(t)
	b.url = "redis://127.0.0.1:1" // nothing listens on port 1
	out, errs, code := b.run("project", "count", "s")
	require.Equal(t, ExitError, code, errs)
	require.Empty(t, out)
	require.Equal(t, 1, strings.Count(errs, "\n"), "%q", errs)
}
